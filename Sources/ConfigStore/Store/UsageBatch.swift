public import ConfigCore
public import Foundation

/// One worker's counts since its last batch (`UsageStore.record`).
public struct UsageBatch: Sendable, Equatable {
    /// The hour bucket the counts fall in (`UsageWindow.bucket(of:)`).
    public var hour: Date
    /// When the counts were taken: a template first counted is counted since then.
    public var time: Date
    public var templates: [TemplateUsage]

    public init(hour: Date, time: Date, templates: [TemplateUsage]) {
        self.hour = hour
        self.time = time
        self.templates = templates
    }

    /// The answers counted (fetches, bulk and single evaluations), each once: every answer is
    /// counted under exactly one app version (the empty one when the client sent none), so the
    /// app-version counts add up to them.
    public var answers: Int64 {
        templates.reduce(0) { sum, usage in
            sum + usage.clients.reduce(0) { $0 + ($1.key.dimension == .appVersion ? $1.value : 0) }
        }
    }

    /// Adds `other`'s counts (of the same hour) to these, template by template; the time is the
    /// earlier one (a template first counted in either was counted since then).
    public mutating func add(_ other: UsageBatch) {
        time = min(time, other.time)
        for usage in other.templates {
            if let index = templates.firstIndex(where: { $0.key == usage.key }) {
                templates[index].add(usage)
            } else {
                templates.append(usage)
            }
        }
    }
}

/// The counts of one template in a batch.
public struct TemplateUsage: Sendable, Equatable {
    public var key: TemplateKey
    /// The version the worker serves every client (but a canary's share), when it moved on
    /// since the worker last recorded one: its keys, and when it was published.
    public var head: ServedHead?
    /// Evaluations by parameter, source and value.
    public var uses: [ParameterUse: Int64]
    /// Evaluations by app version and platform, per served version.
    public var clients: [ClientCount: Int64]
    /// The keys of each version named in `clients`.
    public var versionKeys: [Int64: [String]]
    /// The last evaluation counted of each key.
    public var lastEvaluations: [String: Date]

    public init(key: TemplateKey, head: ServedHead? = nil, uses: [ParameterUse: Int64] = [:], clients: [ClientCount: Int64] = [:],
                versionKeys: [Int64: [String]] = [:], lastEvaluations: [String: Date] = [:]) {
        self.key = key
        self.head = head
        self.uses = uses
        self.clients = clients
        self.versionKeys = versionKeys
        self.lastEvaluations = lastEvaluations
    }

    /// Nothing to write.
    public var isEmpty: Bool { head == nil && uses.isEmpty && clients.isEmpty && lastEvaluations.isEmpty }

    /// Keeps `time` as `key`'s last evaluation unless a later one is kept.
    public mutating func noteEvaluation(of key: String, at time: Date) {
        if lastEvaluations[key].map({ $0 < time }) ?? true { lastEvaluations[key] = time }
    }

    /// Adds the counts of `other` (of the same template) to these: a worker's write that failed
    /// is written with its next one. The newer head wins.
    public mutating func add(_ other: TemplateUsage) {
        if let head = other.head, head.version > self.head?.version ?? .min { self.head = head }
        uses.merge(other.uses, uniquingKeysWith: +)
        clients.merge(other.clients, uniquingKeysWith: +)
        versionKeys.merge(other.versionKeys) { kept, _ in kept }
        for (key, time) in other.lastEvaluations { noteEvaluation(of: key, at: time) }
    }
}

/// A served version as usage records it: which keys a template has, and since when.
public struct ServedHead: Sendable, Equatable {
    public var version: Int64
    public var publishTime: Date
    public var keys: [String]

    public init(version: Int64, publishTime: Date, keys: [String]) {
        self.version = version
        self.publishTime = publishTime
        self.keys = keys
    }
}

/// Which clients evaluated: the evaluations of one app version or platform, of one served version.
public struct ClientCount: Sendable, Hashable {
    public var version: Int64
    /// The one flag an OpenFeature single evaluation read; nil for an answer that evaluates every
    /// key of the version (a fetch, a bulk evaluation).
    public var parameter: String?
    public var dimension: ClientDimension
    /// The client's app version or platform (`ClientDimension.notSet` when it sent none).
    public var value: String

    public init(version: Int64, parameter: String? = nil, dimension: ClientDimension, value: String) {
        self.version = version
        self.parameter = parameter
        self.dimension = dimension
        self.value = value
    }
}

/// What a client count is by.
public enum ClientDimension: String, Sendable, CaseIterable, Codable {
    case appVersion, platform

    /// The value of a client that sent none.
    public static let notSet = "(not set)"
    /// The values past those a report (or a worker's bounded tally) names.
    public static let other = "(other)"
    /// The longest value kept, in UTF-8 bytes: a longer one is cut.
    public static let maxValueBytes = 64
}
