import ConfigCore
import ConfigStore
import Foundation
import ServerCore

/// The JSON body of an event (docs/webhooks.md, "Payload"): Firebase's update fields of the
/// version it reports (`versionNumber`, `updateTime`, `updateUser`, `description`,
/// `updateOrigin`, `updateType`, `rollbackSource`), then `id`, `type`, `time`, `project`,
/// `environment` and `namespace` (the template's kind, as Firebase names it), the `diff` in the
/// `:diff` answer's shape and the event's own `data`.
struct WebhookPayload: Encodable {
    let event: WebhookEvent
    let diff: VersionDiff?

    /// The body of `event`: the one kept for it, or a new one with its diff read from `store`
    /// (blocking), which every later attempt sends again.
    static func body(of event: WebhookEvent, store: any TemplateStore) -> (body: [UInt8], isNew: Bool) {
        if let body = event.body { return (body, false) }
        var diff: VersionDiff?
        if let from = event.diffFrom, let to = event.update?.versionNumber,
           let namespace = event.namespace.flatMap(TemplateNamespace.init(rawValue:)) {
            diff = VersionDiff.read(from: from, to: to, of: TemplateKey(project: event.project, namespace: namespace), in: store)
        }
        return (Array(TemplateJSON.encode(WebhookPayload(event: event, diff: diff))), true)
    }

    private enum Key: String, CodingKey {
        case id, type, time, project, environment, namespace, diff, data
    }

    func encode(to encoder: any Encoder) throws {
        // Firebase's fields at the top level, as its `Version` writes them; the others beside them.
        if let update = event.update { try TemplateVersion(update).encode(to: encoder) }
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(event.id, forKey: .id)
        try container.encode(event.type, forKey: .type)
        try container.encode(Timestamp(event.time), forKey: .time)
        try container.encode(event.project, forKey: .project)
        if let stored = event.namespace {
            // A name this release cannot read is sent as it was stored.
            let namespace = TemplateNamespace(rawValue: stored)
            try container.encode(namespace?.environment.rawValue ?? EnvironmentID.production.rawValue, forKey: .environment)
            try container.encode(namespace?.kind.rawValue ?? stored, forKey: .namespace)
        }
        try container.encodeIfPresent(diff, forKey: .diff)
        let data = try event.data.map { try JSONDecoder().decode(JSONValue.self, from: Data($0)) }
        try container.encodeIfPresent(data, forKey: .data)
    }
}
