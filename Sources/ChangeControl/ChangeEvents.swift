import ConfigCore
import ConfigStore
import Foundation

/// The webhook events of change-request steps (docs/webhooks.md): each is written in the
/// transaction of the step, and carries the request in `data.changeRequest`.
enum ChangeEvents {
    private struct Data: Encodable {
        struct Request: Encodable {
            let id: String
            let status: String
            let kind: String
            let baseVersion: Int64
            let description: String?
            let author: ChangeRequest.Step
            let approvals: Int
            let scheduleTime: Timestamp?
            let conflictVersion: Int64?
            let failure: String?
        }
        let changeRequest: Request
        /// Who took the step, and what they said.
        let actor: ChangeRequest.Step?
    }

    /// `data` for `request` (stored as `stored`) after a step by `actor`.
    static func data(_ stored: StoredChangeRequest, _ request: ChangeRequest, actor: ChangeRequest.Step?) -> [UInt8] {
        Array(TemplateJSON.encode(Data(
            changeRequest: Data.Request(
                id: String(stored.id), status: stored.status, kind: request.kind.rawValue, baseVersion: request.baseVersion,
                description: request.description, author: request.author, approvals: request.approvals.count,
                scheduleTime: stored.scheduleTime.map(Timestamp.init), conflictVersion: request.conflictVersion,
                failure: request.failure),
            actor: actor)))
    }

    /// The events of a step that writes no version, taken at `time`.
    static func events(_ types: [WebhookEventType], _ stored: StoredChangeRequest, _ request: ChangeRequest,
                       actor: ChangeRequest.Step?, time: Date) -> [WebhookEvent] {
        let data = data(stored, request, actor: actor)
        return types.map { type in
            WebhookEvent(type: type.rawValue, project: stored.project, namespace: stored.namespace.rawValue, time: time, data: data)
        }
    }
}
