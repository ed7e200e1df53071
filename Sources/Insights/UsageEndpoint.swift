package import ConfigCore
package import ConfigStore
import Foundation
import HTTP1
package import ServerCore

/// What clients read (docs/insights.md): a template's usage report, parameters marked permanent,
/// and the project's stale days. Every answer reads the store, which sums what every worker and
/// node wrote (each writes its counts every `usage.flushIntervalSeconds`).
package struct UsageEndpoint: Sendable {
    let store: any UsageStore
    let templates: TemplateRegistry
    let clock: any WallClock
    /// App versions and platforms a report names per window unless asked (`usage.topValues`).
    let topValues: Int

    package init(store: any UsageStore, templates: TemplateRegistry, clock: any WallClock, topValues: Int) {
        self.store = store
        self.templates = templates
        self.clock = clock
        self.topValues = topValues
    }

    /// `GET …/remoteConfig:usage[?topValues=N]`: the parameters of the template as served now.
    func report(_ exchange: Exchange, key: TemplateKey) throws {
        let top = try exchange.uri.integer("topValues", in: 1...100) ?? topValues
        let served = templates.active(key)
        let now = clock.now
        exchange.answerFromStore { [store] in
            let report = try store.report(key, parameters: served?.compiled.parameterKeys ?? [],
                                          publishTime: served?.servedHead.publishTime ?? now, now: now, topValues: top)
            return .json(Array(TemplateJSON.encode(UsageReportJSON(report, version: served?.versionNumber ?? 0))))
        }
    }

    /// `POST …/parameters/{parameter}:markPermanent` (or `:unmarkPermanent`): a parameter of the
    /// served template is marked (an unknown one only unmarked, as after its removal).
    func mark(_ exchange: Exchange, key: TemplateKey, permanent: Bool, actor: String) throws {
        let parameter = exchange.parameter("parameter")
        if permanent, templates.active(key)?.compiled.parameterKeys.contains(parameter) != true {
            throw APIError.notFound("Parameter '\(parameter)' is not in the template \(key.namespace.rawValue) of project \(key.project).")
        }
        let now = clock.now
        exchange.answerFromStore { [store] in
            let changed = try store.setPermanent(key, parameters: [parameter], permanent: permanent, actor: actor, now: now)
            return .json(Array(TemplateJSON.encode(Marked(key: parameter, permanent: permanent, changed: !changed.isEmpty))))
        }
    }

    /// `GET /v1/projects/{p}/usageSettings`.
    func settings(_ exchange: Exchange, project: String) {
        exchange.answerFromStore { [store] in .json(try Self.settings(of: project, in: store)) }
    }

    /// `PATCH /v1/projects/{p}/usageSettings` with `{"staleDays": N}`.
    func updateSettings(_ exchange: Exchange, project: String) throws {
        let body = try ManagementBody(exchange.request.body, fields: ["staleDays"])
        let days = try body.integer("staleDays")
        exchange.answerFromStore { [store] in
            if let days {
                guard StalenessRule.allowedDays.contains(Int(days)) else {
                    throw APIError.badRequest("staleDays must be from \(StalenessRule.allowedDays.lowerBound) to "
                        + "\(StalenessRule.allowedDays.upperBound), got \(days).")
                }
                try store.setStaleDays(project: project, days: Int(days))
            }
            return .json(try Self.settings(of: project, in: store))
        }
    }

    private static func settings(of project: String, in store: any UsageStore) throws -> [UInt8] {
        struct Settings: Encodable {
            struct Permanent: Encodable {
                let environment: String
                let namespace: String
                let key: String
                let markTime: Timestamp
                let markedBy: String
            }

            let staleDays: Int
            let permanentParameters: [Permanent]
        }
        let permanent = try store.permanentParameters(project: project).map {
            Settings.Permanent(environment: $0.namespace.environment.rawValue, namespace: $0.namespace.kind.rawValue, key: $0.key,
                               markTime: Timestamp($0.markTime), markedBy: $0.markedBy)
        }
        return Array(TemplateJSON.encode(Settings(staleDays: try store.staleDays(project: project), permanentParameters: permanent)))
    }

    private struct Marked: Encodable {
        let key: String
        let permanent: Bool
        let changed: Bool
    }
}
