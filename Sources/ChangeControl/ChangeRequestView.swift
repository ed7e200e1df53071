import ConfigCore
import ConfigStore
import Foundation
import ServerCore

/// A change request as the API shows it.
struct ChangeRequestView: Encodable {
    let id: String
    let project: String
    let environment: String
    /// The template's kind, as Firebase names it.
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
    /// The environment and version a promotion copies.
    let promotedFrom: PromotionSource?
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
        environment = stored.namespace.environment.rawValue
        namespace = stored.namespace.kind.rawValue
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
        promotedFrom = request.promotedFrom
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

    init(_ body: [UInt8]) throws {
        let fields = try ManagementBody(body, fields: ["template", "rollbackTo", "canary", "description", "scheduleTime"])
        if let template = fields.json("template") {
            guard case .object = template,
                  let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
                  let data = try? JSONSerialization.data(withJSONObject: object["template"] ?? [:]) else {
                throw APIError.badRequest("'template' must be a template (JSON object).")
            }
            // The template's own bytes (re-read: its numbers stay as written), for its own checks.
            self.template = Array(data)
        }
        rollbackTo = try fields.integer("rollbackTo")
        if let canary = try fields.object("canary", fields: ["step", "percent"]) {
            guard let step = try canary.string("step").flatMap(ChangeRequest.CanaryStep.init(rawValue:)) else {
                throw APIError.badRequest("'canary.step' must be \"start\", \"share\", \"promote\" or \"abort\".")
            }
            canaryStep = step
            if let percent = try canary.numberText("percent") {
                guard let number = Double(percent), number > 0, number <= 100 else {
                    throw APIError.badRequest("'canary.percent' must be a number above 0 and at most 100.")
                }
                canaryPercent = number
            }
        }
        description = try fields.string("description")
        if let description, description.count > 256 {
            throw APIError.badRequest("'description' must be at most 256 characters.")
        }
        scheduleTime = try fields.string("scheduleTime")
    }
}
