import ConfigCore
package import ConfigStore
import Foundation

extension ActiveTemplate {
    /// Adds what this version served since the last take to `usage` (its template's), as the store
    /// counts it: each counted answer expanded into what each key served (once per distinct
    /// answer, not per request), the clients by app version and platform, the last evaluations.
    /// - Returns: whether anything was served.
    func takeUsage(into usage: inout TemplateUsage) -> Bool {
        var answers = fetchAnswers.takeCounts()
        answers.merge(ofrepAnswers.takeCounts(), uniquingKeysWith: +)
        let counts = self.usage.take()
        guard !answers.isEmpty || !counts.isEmpty else { return false }
        for (outcomes, count) in answers {
            for use in uses(for: outcomes) { usage.uses[use, default: 0] += count }
        }
        if let last = counts.lastAnswer {
            let keys = compiled.parameterKeys
            usage.versionKeys[versionNumber] = keys
            for key in keys { usage.noteEvaluation(of: key, at: last) }
            for dimension in ClientDimension.allCases {
                for (value, count) in counts.clients(by: dimension) {
                    usage.clients[ClientCount(version: versionNumber, dimension: dimension, value: value), default: 0] += count
                }
            }
        }
        for (answer, count) in counts.flags {
            guard let use = compiled.use(of: answer.flag, for: answer.outcomes) else { continue }
            usage.uses[use, default: 0] += count
        }
        usage.clients.merge(counts.flagClients, uniquingKeysWith: +)
        for (flag, time) in counts.flagLast { usage.noteEvaluation(of: flag, at: time) }
        return true
    }

    /// What each key served clients with `outcomes`, computed once per version.
    private func uses(for outcomes: ConditionOutcomes) -> [ParameterUse] {
        usesByOutcomes.value(for: outcomes) { compiled.uses(for: outcomes) }.value
    }

    /// This version as the head whose keys usage records.
    package var servedHead: ServedHead {
        ServedHead(version: versionNumber, publishTime: compiled.template.version?.updateTime?.date ?? Date(timeIntervalSince1970: 0),
                   keys: compiled.parameterKeys)
    }
}
