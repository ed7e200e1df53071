public import ConfigCore
public import Foundation

/// The usage of a template's parameters (`UsageStore.report`), with the project's stale rule
/// applied.
public struct UsageReport: Sendable, Equatable {
    public var key: TemplateKey
    /// When the report was made.
    public var time: Date
    public var rule: StalenessRule
    /// Since when evaluations of the template are counted; nil when none was yet.
    public var countedSince: Date?
    /// In the order asked.
    public var parameters: [ParameterUsage]

    public init(key: TemplateKey, time: Date, rule: StalenessRule, countedSince: Date?, parameters: [ParameterUsage]) {
        self.key = key
        self.time = time
        self.rule = rule
        self.countedSince = countedSince
        self.parameters = parameters
    }

    /// The keys no client evaluated since they were published.
    public var unevaluated: [String] { parameters.filter(\.unevaluated).map(\.key) }

    /// The stale parameters and why.
    public var stale: [ParameterUsage] { parameters.filter { $0.staleReason != nil } }
}

/// One parameter's usage.
public struct ParameterUsage: Sendable, Equatable {
    public var key: String
    public var facts: ParameterFacts
    /// Every window's counts.
    public var windows: [UsageWindow: UsageCounts]
    /// Evaluations per day over the last `UsageWindow.seriesDays` days, oldest first; the last
    /// day ends with the current hour (`UsageWindow.seriesEnd`).
    public var daily: [Int64]
    /// No client evaluated it since it was published.
    public var unevaluated: Bool
    /// Why it is stale, nil when it is not.
    public var staleReason: StaleReason?

    public init(key: String, facts: ParameterFacts, windows: [UsageWindow: UsageCounts], daily: [Int64] = [], rule: StalenessRule,
                now: Date) {
        self.key = key
        self.facts = facts
        self.windows = windows
        self.daily = daily
        unevaluated = rule.isUnevaluated(facts)
        staleReason = rule.staleReason(facts, at: now)
    }
}

/// The evaluations of one parameter in one window.
public struct UsageCounts: Sendable, Equatable {
    public var evaluations: Int64 = 0
    /// By `ParameterUse.source`.
    public var bySource: [String: Int64] = [:]
    public var byAppVersion: [String: Int64] = [:]
    public var byPlatform: [String: Int64] = [:]

    public init(evaluations: Int64 = 0, bySource: [String: Int64] = [:], byAppVersion: [String: Int64] = [:],
                byPlatform: [String: Int64] = [:]) {
        self.evaluations = evaluations
        self.bySource = bySource
        self.byAppVersion = byAppVersion
        self.byPlatform = byPlatform
    }

    /// Adds `count` under `value` of `dimension`.
    mutating func add(_ count: Int64, _ dimension: ClientDimension, _ value: String) {
        switch dimension {
        case .appVersion: byAppVersion[value, default: 0] += count
        case .platform: byPlatform[value, default: 0] += count
        }
    }

    /// The counts with at most `limit` app versions and platforms named each (the most evaluated,
    /// ties by name); the rest summed under `ClientDimension.other`.
    func limited(to limit: Int) -> UsageCounts {
        var counts = self
        counts.byAppVersion = Self.top(byAppVersion, limit)
        counts.byPlatform = Self.top(byPlatform, limit)
        return counts
    }

    /// `counts` with its `limit` largest values kept and the others (with any `other` already
    /// there) summed under `ClientDimension.other`.
    static func top(_ counts: [String: Int64], _ limit: Int) -> [String: Int64] {
        var other = counts[ClientDimension.other] ?? 0
        let named = counts.filter { $0.key != ClientDimension.other }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        var kept: [String: Int64] = [:]
        for (index, entry) in named.enumerated() {
            if index < max(0, limit) { kept[entry.key] = entry.value } else { other += entry.value }
        }
        if other > 0 { kept[ClientDimension.other] = other }
        return kept
    }
}
