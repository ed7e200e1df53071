public import Foundation

/// Exponential back-off with jitter: the n-th consecutive failure waits
/// `min(initial × multiplier^(n-1), maximum)` seconds, scaled by a random factor in
/// `[1 - jitter, 1 + jitter)` so that many clients do not reconnect in step.
public struct Backoff: Sendable, Equatable {
    /// Seconds before the first retry.
    public var initial: TimeInterval
    /// Cap on the nominal delay, in seconds.
    public var maximum: TimeInterval
    /// Growth of the delay per further failure.
    public var multiplier: Double
    /// Relative spread, 0 ... 1; 0.5 means ±50 %.
    public var jitter: Double

    /// - Parameters:
    ///   - initial: seconds before the first retry.
    ///   - maximum: cap on the nominal delay.
    ///   - multiplier: growth per failure.
    ///   - jitter: relative spread around the nominal delay.
    public init(initial: TimeInterval = 1, maximum: TimeInterval = 300, multiplier: Double = 2, jitter: Double = 0.5) {
        precondition(initial > 0 && maximum >= initial && multiplier >= 1, "back-off needs 0 < initial <= maximum and multiplier >= 1")
        precondition((0...1).contains(jitter), "jitter must be within 0...1")
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The delay before jitter after `failures` consecutive failures (0 failures: no delay).
    public func nominalDelay(afterFailures failures: Int) -> TimeInterval {
        guard failures > 0 else { return 0 }
        // A huge failure count overflows to +inf, which the cap turns back into `maximum`.
        return min(initial * pow(multiplier, Double(failures - 1)), maximum)
    }

    /// The jittered delay after `failures` consecutive failures.
    public func delay(afterFailures failures: Int, using generator: inout some RandomNumberGenerator) -> TimeInterval {
        let nominal = nominalDelay(afterFailures: failures)
        guard nominal > 0, jitter > 0 else { return nominal }
        let factor = Double.random(in: (1 - jitter)..<(1 + jitter), using: &generator)
        return nominal * factor
    }
}
