public import Foundation

/// How long calls took from a fault on, until they are fast again: a test's evidence that
/// something heals, and by when.
public struct RecoveryTimings: Sendable {
    /// Each call: when it began after the fault, and how long it took.
    public private(set) var calls: [(at: Duration, took: Duration)] = []
    /// How many of the last calls were fast.
    public private(set) var fastInARow = 0

    /// Calls `call` one after the other from `fault` on, until `inARow` in a row take under
    /// `fast`, or `limit` after the fault (bounded when each call is).
    public init(since fault: ContinuousClock.Instant, fast: Duration, inARow: Int = 5, limit: Duration,
                _ call: (Int) throws -> Void) rethrows {
        while fastInARow < inARow, ContinuousClock.now - fault < limit {
            let start = ContinuousClock.now
            try call(calls.count)
            let took = ContinuousClock.now - start
            calls.append((start - fault, took))
            fastInARow = took < fast ? fastInARow + 1 : 0
        }
    }

    /// When, after the fault, the last run of fast calls began.
    public var fastAgain: Duration {
        calls.dropLast(fastInARow).last.map { $0.at + $0.took } ?? .zero
    }

    /// One line per call; printed too when `RCS_MEASURE_PUBLISH` is set (for the docs).
    public func report(_ title: String) -> String {
        let text = "\(title):\n" + calls.map { "at \($0.at): \($0.took)" }.joined(separator: "\n")
        if ProcessInfo.processInfo.environment["RCS_MEASURE_PUBLISH"] != nil { print(text) }
        return text
    }
}
