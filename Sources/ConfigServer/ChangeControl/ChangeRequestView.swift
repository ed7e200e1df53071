import ConfigCore
import ConfigStore
import Foundation

/// A change request as the API shows it.
struct ChangeRequestView: Encodable {
    let id: String
    let project: String
    let namespace: String
    let status: String
    let revision: Int64
    let kind: String
    let template: RemoteConfigTemplate?
    let rollbackTo: Int64?
    let canaryStep: String?
    let canaryPercent: Double?
    let baseVersion: Int64
    let description: String?
    let author: ChangeRequest.Step
    let approvals: [ChangeRequest.Step]
    let requiredApprovals: Int
    let rejection: ChangeRequest.Step?
    let cancellation: ChangeRequest.Step?
    let scheduledBy: ChangeRequest.Step?
    let scheduleTime: Timestamp?
    let appliedBy: ChangeRequest.Step?
    let appliedVersion: Int64?
    let bypassedApproval: Bool
    let conflictVersion: Int64?
    let failure: String?
    let createTime: Timestamp
    let updateTime: Timestamp
    /// The proposal against the version it was based on.
    var diff: TemplateDiff?
    /// When the template moved since: the active version, and the proposal against it.
    var activeVersion: Int64?
    var diffAgainstActive: TemplateDiff?

    init(_ stored: StoredChangeRequest, _ request: ChangeRequest, policy: ChangePolicy) {
        id = String(stored.id)
        project = stored.project
        namespace = stored.namespace.rawValue
        status = stored.status
        revision = stored.revision
        kind = request.kind.rawValue
        template = request.template
        rollbackTo = request.rollbackTo
        canaryStep = request.canaryStep?.rawValue
        canaryPercent = request.canaryPercent
        baseVersion = request.baseVersion
        description = request.description
        author = request.author
        approvals = request.approvals
        requiredApprovals = policy.requiredApprovals
        rejection = request.rejection
        cancellation = request.cancellation
        scheduledBy = request.scheduledBy
        scheduleTime = stored.scheduleTime.map(Timestamp.init)
        appliedBy = request.appliedBy
        appliedVersion = stored.appliedVersion
        bypassedApproval = request.bypassedApproval
        conflictVersion = request.conflictVersion
        failure = request.failure
        createTime = Timestamp(stored.createTime)
        updateTime = Timestamp(stored.updateTime)
    }
}

/// What `POST …/changeRequests` and `PATCH …/{id}` carry.
struct Proposal {
    /// The template's JSON, as sent.
    var template: [UInt8]?
    var rollbackTo: Int64?
    /// `{"step": "start"|"share"|"promote"|"abort", "percent": P}`.
    var canaryStep: ChangeRequest.CanaryStep?
    var canaryPercent: Double?
    var description: String?
    var scheduleTime: String?

    init(_ body: [UInt8], limit: Int) throws {
        guard body.count <= limit, let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw APIError.badRequest("The body must be a JSON object: {\"template\": {…}} or {\"rollbackTo\": N}, "
                + "with \"description\" and, to schedule, \"scheduleTime\".")
        }
        let known: Set = ["template", "rollbackTo", "canary", "description", "scheduleTime"]
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw APIError.badRequest("Unknown field '\(unknown)' in the change request.")
        }
        if let template = object["template"] {
            guard template is [String: Any], let data = try? JSONSerialization.data(withJSONObject: template) else {
                throw APIError.badRequest("template must be a template (JSON object).")
            }
            self.template = Array(data)
        }
        if let target = object["rollbackTo"] {
            guard let number = (target as? NSNumber)?.int64Value ?? (target as? String).flatMap({ Int64($0) }) else {
                throw APIError.badRequest("rollbackTo must be a version number.")
            }
            rollbackTo = number
        }
        if let canary = object["canary"] {
            guard let step = ((canary as? [String: Any])?["step"] as? String).flatMap(ChangeRequest.CanaryStep.init(rawValue:)) else {
                throw APIError.badRequest("canary must be {\"step\": \"start\"|\"share\"|\"promote\"|\"abort\", \"percent\": P}.")
            }
            canaryStep = step
            if let percent = (canary as? [String: Any])?["percent"] {
                guard let number = (percent as? NSNumber)?.doubleValue, number > 0, number <= 100, !(percent is Bool) else {
                    throw APIError.badRequest("canary.percent must be a number above 0 and at most 100.")
                }
                canaryPercent = number
            }
        }
        if let description = object["description"] {
            guard let text = description as? String, text.count <= 256 else {
                throw APIError.badRequest("description must be text of at most 256 characters.")
            }
            self.description = text
        }
        if let time = object["scheduleTime"] {
            guard let text = time as? String else { throw APIError.badRequest("scheduleTime must be an RFC 3339 time.") }
            scheduleTime = text
        }
    }
}
