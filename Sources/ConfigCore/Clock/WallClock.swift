import Dispatch
public import Foundation
import Synchronization

/// Where the server reads the time of day: schedules, session idle time, leases, record times.
/// Injected everywhere, so that what depends on time is tested by moving a `ManualClock`
/// instead of waiting.
public protocol WallClock: Sendable {
    /// The current time.
    var now: Date { get }

    /// Calls `wake` once the clock should read `date` or later (at once when it does already):
    /// the system clock after as much time as is left until then, a manual one when it is moved
    /// there. A caller reads the clock again when woken: the system's clock may be set meanwhile.
    func wake(at date: Date, _ wake: @escaping @Sendable () -> Void)
}

/// The system's clock.
public struct SystemClock: WallClock {
    public init() {}

    public var now: Date { Date() }

    public func wake(at date: Date, _ wake: @escaping @Sendable () -> Void) {
        let seconds = max(0, date.timeIntervalSince(now))
        // A delay, not a wall deadline: a clock set back an hour would otherwise hold the wake
        // for an hour; the caller sees the change when woken.
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: wake)
    }
}

/// A clock that moves only when told to, for tests: it wakes whoever waits for a time when it
/// is moved to or past that time, on the thread that moves it.
public final class ManualClock: WallClock {
    private struct State {
        var now: Date
        var waiting: [(date: Date, wake: @Sendable () -> Void)] = []
    }

    private let state: Mutex<State>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Mutex(State(now: start))
    }

    public var now: Date { state.withLock { $0.now } }

    public func wake(at date: Date, _ wake: @escaping @Sendable () -> Void) {
        let isDue = state.withLock { state in
            guard date > state.now else { return true }
            state.waiting.append((date, wake))
            return false
        }
        if isDue { wake() }
    }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) {
        move { $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) {
        move { _ in date }
    }

    private func move(_ change: (Date) -> Date) {
        // Woken outside the lock: a wake may read the clock or wait for a time again.
        let due = state.withLock { state in
            state.now = change(state.now)
            let now = state.now
            let due = state.waiting.filter { $0.date <= now }
            state.waiting.removeAll { $0.date <= now }
            return due
        }
        for waiting in due { waiting.wake() }
    }
}
