public import Foundation
import Synchronization

/// A clock a test moves by hand, for code that takes its "now" as a closure (`{ clock.now }`),
/// so that time-dependent behaviour is tested without waiting.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    /// - Parameter start: the time the clock shows until it is first advanced.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Mutex(start)
    }

    /// The time the clock shows.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    /// - Parameter seconds: how far.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
