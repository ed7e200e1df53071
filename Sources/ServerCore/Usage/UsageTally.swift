import ConfigCore
import ConfigStore
import Foundation
import Synchronization

/// What one served version counts besides its answers (which its answer caches count,
/// `CountingCache`): the app versions and platforms of the clients it served, the last time it
/// served one, and OpenFeature's evaluations of a single flag (docs/insights.md).
///
/// Bounded between two takes: at most `maxAppVersions` app versions and `maxPlatforms` platforms
/// are named, the rest counted under `ClientDimension.other`.
package final class UsageTally: Sendable {
    static let maxAppVersions = 64
    static let maxPlatforms = 16
    /// Flags, app versions and platforms of single evaluations named between two takes.
    static let maxFlagClients = 1_024

    /// A single flag's evaluation for clients of one outcome vector.
    struct FlagAnswer: Hashable, Sendable {
        let flag: String
        let outcomes: ConditionOutcomes
    }

    /// What was counted since the last take.
    struct Counts: Sendable {
        /// By app version ("" when the client sent none) and by platform, of answers that
        /// evaluate every key.
        var appVersions = ClientTally(limit: UsageTally.maxAppVersions)
        var platforms = ClientTally(limit: UsageTally.maxPlatforms)
        /// The last such answer.
        var lastAnswer: Date?
        var flags: [FlagAnswer: Int64] = [:]
        var flagClients: [ClientCount: Int64] = [:]
        var flagLast: [String: Date] = [:]

        var isEmpty: Bool { lastAnswer == nil && flags.isEmpty }

        /// The answers by `dimension`, as the store counts them.
        func clients(by dimension: ClientDimension) -> [(value: String, count: Int64)] {
            let tally = dimension == .appVersion ? appVersions : platforms
            return tally.counts + (tally.other > 0 ? [(ClientDimension.other, tally.other)] : [])
        }
    }

    private let counts = Mutex(Counts())
    private let version: Int64

    init(version: Int64) {
        self.version = version
    }

    /// Counts one answer that evaluated every key, served at `time` to a client of `appVersion`
    /// and `platform` (nil: not sent).
    func recordAnswer(appVersion: String?, platform: String?, at time: Date) {
        counts.withLock { counts in
            counts.appVersions.add(appVersion ?? "")
            counts.platforms.add(platform ?? "")
            if counts.lastAnswer.map({ $0 < time }) ?? true { counts.lastAnswer = time }
        }
    }

    /// Counts the evaluation of one flag for a client of `context` with `outcomes`.
    func recordFlag(_ flag: String, outcomes: ConditionOutcomes, for context: EvaluationContext) {
        counts.withLock { counts in
            counts.flags[FlagAnswer(flag: flag, outcomes: outcomes), default: 0] += 1
            for (dimension, value) in [(ClientDimension.appVersion, context.appVersion), (.platform, context.platform)] {
                var client = ClientCount(version: version, parameter: flag, dimension: dimension, value: value ?? "")
                if counts.flagClients[client] == nil, counts.flagClients.count >= Self.maxFlagClients { client.value = ClientDimension.other }
                counts.flagClients[client, default: 0] += 1
            }
            if counts.flagLast[flag].map({ $0 < context.now }) ?? true { counts.flagLast[flag] = context.now }
        }
    }

    /// What was counted since the last call; the counts start over.
    func take() -> Counts {
        counts.withLock { counts in
            defer { counts = Counts() }
            return counts
        }
    }
}
