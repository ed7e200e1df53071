public import Foundation

/// The spans a usage report sums (docs/insights.md), over hourly buckets: a window of W covers
/// the bucket of the current hour and the whole hours of the W before it, so it holds between W
/// and W plus one hour of evaluations.
public enum UsageWindow: String, Sendable, CaseIterable, Codable {
    case hour, day, week, month

    public static let bucketSeconds: TimeInterval = 3_600

    /// The window's length.
    public var seconds: TimeInterval {
        switch self {
        case .hour: 3_600
        case .day: 86_400
        case .week: 7 * 86_400
        case .month: 30 * 86_400
        }
    }

    /// The start of the first bucket the window covers at `now`.
    public func start(at now: Date) -> Date {
        Self.bucket(of: now).addingTimeInterval(-seconds)
    }

    /// The start of the hour bucket `time` falls in.
    public static func bucket(of time: Date) -> Date {
        Date(timeIntervalSince1970: (time.timeIntervalSince1970 / bucketSeconds).rounded(.down) * bucketSeconds)
    }

    /// The next bucket's start after `time`.
    public static func nextBucket(after time: Date) -> Date {
        bucket(of: time).addingTimeInterval(bucketSeconds)
    }

    /// How many days a report's daily series has (`ParameterUsage.daily`): the longest window.
    public static let seriesDays = 30

    /// The end of the series' last day at `now`: the end of the current hour's bucket. Each day of
    /// the series is the 24 hours before the next one's start, so the last holds the current hour
    /// and the 23 before it.
    public static func seriesEnd(at now: Date) -> Date {
        nextBucket(after: now)
    }

    /// How long buckets are kept: the longest window, or the project's stale days when longer
    /// (the rule that a parameter served one value for N days reads N days of buckets).
    public static func retentionDays(staleDays: Int) -> Int {
        max(30, staleDays)
    }
}
