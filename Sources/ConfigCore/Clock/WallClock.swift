public import Foundation
import Synchronization

/// Where the server reads the time of day: schedules, session idle time, leases, record times.
/// Injected everywhere, so that what depends on time is tested by moving a `ManualClock`
/// instead of waiting.
public protocol WallClock: Sendable {
    /// The current time.
    var now: Date { get }
}

/// The system's clock.
public struct SystemClock: WallClock {
    public init() {}

    public var now: Date { Date() }
}

/// A clock that moves only when told to, for tests.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
