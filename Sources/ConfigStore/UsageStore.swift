public import ConfigCore
public import Foundation

/// What clients read (docs/insights.md): `ConfigDatabase.usage`. Each worker adds the counts of
/// what it served (`record`, periodically), the store sums them across workers and nodes and keeps
/// them in hourly buckets; nothing is announced (no worker keeps usage in memory, and counting
/// must never make another worker read its templates again).
public protocol UsageStore: Sendable {
    /// Adds one worker's counts, in one transaction: its templates' evaluations by source and
    /// value, by app version and platform, the last evaluation of each key, and the head each
    /// serves when it moved on (which keys a template has, and since when).
    func record(_ batch: UsageBatch) throws(StoreError)

    /// The usage of `parameters` of `key` at `now`, each window summed over every worker and node.
    /// - Parameters:
    ///   - parameters: the keys of the template as it is served now; the report lists them alone.
    ///   - publishTime: when the served version was published, for a key the store has not seen
    ///     in a recorded head yet.
    ///   - topValues: how many app versions and platforms to name per window; the rest are summed
    ///     under `ClientDimension.other`.
    func report(_ key: TemplateKey, parameters: [String], publishTime: Date, now: Date, topValues: Int) throws(StoreError) -> UsageReport

    /// The project's stale days (`StalenessRule.defaultDays` unless set).
    func staleDays(project: String) throws(StoreError) -> Int

    /// Sets the project's stale days.
    /// - Throws: `invalidArgument` for days out of `StalenessRule.allowedDays`.
    func setStaleDays(project: String, days: Int) throws(StoreError)

    /// The parameters of `project` marked permanent, by namespace and key.
    func permanentParameters(project: String) throws(StoreError) -> [PermanentParameter]

    /// Marks `parameters` of `key` permanent (or no longer); the keys whose mark changed.
    @discardableResult
    func setPermanent(_ key: TemplateKey, parameters: [String], permanent: Bool, actor: String, now: Date) throws(StoreError) -> [String]

    /// Records which parameters of `key` are stale now: each one newly stale gets a
    /// `parameter.stale` webhook event, in the same transaction, once (whichever worker or node
    /// reports it first); one no longer in `stale` may be reported again later.
    /// - Returns: the keys newly reported.
    @discardableResult
    func reportStale(_ key: TemplateKey, stale: [StaleParameter], now: Date) throws(StoreError) -> [String]

    /// Removes the buckets older than each project keeps (`UsageWindow.retentionDays`) and the key
    /// lists no bucket refers to any more; how many rows.
    @discardableResult
    func prune(now: Date) throws(StoreError) -> Int
}

/// A parameter marked permanent.
public struct PermanentParameter: Sendable, Equatable, Codable {
    public var namespace: TemplateNamespace
    public var key: String
    public var markTime: Date
    /// Who marked it (the caller's id).
    public var markedBy: String

    public init(namespace: TemplateNamespace, key: String, markTime: Date, markedBy: String) {
        self.namespace = namespace
        self.key = key
        self.markTime = markTime
        self.markedBy = markedBy
    }
}

/// A parameter found stale, as `UsageStore.reportStale` is told of it.
public struct StaleParameter: Sendable, Equatable {
    public var key: String
    public var reason: StaleReason
    public var lastEvaluateTime: Date?
    public var staleDays: Int

    public init(key: String, reason: StaleReason, lastEvaluateTime: Date?, staleDays: Int) {
        self.key = key
        self.reason = reason
        self.lastEvaluateTime = lastEvaluateTime
        self.staleDays = staleDays
    }
}
