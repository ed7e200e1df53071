public import Foundation

/// Why a parameter is stale (docs/insights.md): it could be made permanent, or removed.
public enum StaleReason: String, Sendable, Codable, Equatable {
    /// No client evaluated it for the project's stale days.
    case notEvaluated = "NOT_EVALUATED"
    /// It was evaluated, but every evaluation for the stale days served one value.
    case oneValue = "ONE_VALUE"
}

/// What the store knows of one parameter of a template, which the rules below judge.
public struct ParameterFacts: Sendable, Equatable {
    /// When the parameter appeared in the served template (its version's publish time).
    public var publishTime: Date
    /// Since when evaluations of the template are counted: the parameter is watched from the
    /// later of the two.
    public var countedSince: Date
    /// The last evaluation of the parameter counted, nil if none.
    public var lastEvaluateTime: Date?
    /// How many distinct values it served within the stale days (the key left out counts as
    /// one value: the client's in-app default).
    public var distinctValues: Int
    /// Marked permanent (a kill switch): never stale.
    public var permanent: Bool

    public init(publishTime: Date, countedSince: Date, lastEvaluateTime: Date?, distinctValues: Int, permanent: Bool) {
        self.publishTime = publishTime
        self.countedSince = countedSince
        self.lastEvaluateTime = lastEvaluateTime
        self.distinctValues = distinctValues
        self.permanent = permanent
    }

    /// From when evaluations of the parameter would have been counted.
    public var watchedSince: Date { max(publishTime, countedSince) }
}

/// The project's rule of staleness: N days without an evaluation, or of one value served to every
/// client (`staleDays`, 30 unless the project says otherwise).
public struct StalenessRule: Sendable, Equatable {
    public static let defaultDays = 30
    /// The stale days a project may choose.
    public static let allowedDays = 1...365

    public var days: Int

    public init(days: Int = StalenessRule.defaultDays) {
        self.days = days
    }

    public var seconds: TimeInterval { Double(days) * 86_400 }

    /// The start of the span the rule looks at, at `now`: the buckets from there on are read for
    /// the values served.
    public func windowStart(at now: Date) -> Date {
        UsageWindow.bucket(of: now).addingTimeInterval(-seconds)
    }

    /// No client evaluated the parameter since it was published (whatever the days).
    public func isUnevaluated(_ facts: ParameterFacts) -> Bool {
        guard let last = facts.lastEvaluateTime else { return true }
        return last < facts.publishTime
    }

    /// Why the parameter is stale at `now`, nil when it is not: a permanent one never is; one
    /// watched for less than the stale days is not judged yet.
    public func staleReason(_ facts: ParameterFacts, at now: Date) -> StaleReason? {
        guard !facts.permanent, now.timeIntervalSince(facts.watchedSince) >= seconds else { return nil }
        guard let last = facts.lastEvaluateTime, now.timeIntervalSince(last) < seconds else { return .notEvaluated }
        return facts.distinctValues == 1 ? .oneValue : nil
    }
}
