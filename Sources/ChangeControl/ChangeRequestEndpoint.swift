package import ConfigCore
package import ConfigStore
import Foundation
import HTTP1
package import ServerCore

/// Change requests and approval policies (docs/change-control.md):
/// `…/namespaces/{ns}/changePolicy` and `…/namespaces/{ns}/changeRequests[/{id}[:step]]`.
/// The route declarations name the role each call needs; who may take a step beyond that (not
/// one's own approval, the author's edits) is checked here.
package struct ChangeRequestEndpoint: Sendable {
    let store: any ConfigDatabase
    let templates: TemplateRegistry
    /// The projects' environments, for promotions between them.
    let projects: ProjectDirectory
    let policies: ChangePolicies
    let controlPlane: ControlPlane
    let validation: TemplateValidation
    let applier: ChangeRequestApplier
    let clock: any WallClock
    /// Keeps an admin's bypass of the approvals.
    let audit: AuditTrail

    package init(store: any ConfigDatabase, templates: TemplateRegistry, projects: ProjectDirectory, policies: ChangePolicies,
                 controlPlane: ControlPlane, validation: TemplateValidation, applier: ChangeRequestApplier, clock: any WallClock,
                 audit: AuditTrail) {
        self.store = store
        self.templates = templates
        self.projects = projects
        self.policies = policies
        self.controlPlane = controlPlane
        self.validation = validation
        self.applier = applier
        self.clock = clock
        self.audit = audit
    }

    /// How far ahead a publish may be scheduled.
    static let maxScheduleAhead: TimeInterval = 366 * 86_400
    static let maxCommentLength = 2_000

    // MARK: Policy

    /// `GET …/changePolicy`.
    func policy(_ exchange: Exchange, key: TemplateKey) {
        exchange.respond(.json(Array(TemplateJSON.encode(policies.policy(key)))))
    }

    /// `PUT …/changePolicy` `{"requiredApprovals", "allowSelfApproval", "editorsMayPublish"}`.
    func setPolicy(_ exchange: Exchange, key: TemplateKey) throws {
        let policy = try ChangePolicy(body: exchange.request.body)
        let record = Array(TemplateJSON.encode(policy))
        exchange.answerFromStore { [self] in
            try store.access.putChangePolicy(StoredChangePolicy(project: key.project, namespace: key.namespace, record: record))
            try controlPlane.committed(.access)
            return .json(record)
        }
    }

    // MARK: Requests

    /// `GET …/changeRequests[?status=open]`: newest first, at most 200.
    func list(_ exchange: Exchange, key: TemplateKey) throws {
        let status = try exchange.uri.parameter("status").map { text in
            guard ChangeStatus(rawValue: text) != nil else { throw APIError.badRequest("Unknown status '\(text)'.") }
            return text
        }
        exchange.answerFromStore { [self] in
            let stored = try store.changeRequests.requests(project: key.project, namespace: key.namespace, status: status, limit: 200)
            let views = try stored.map { try ChangeRequestView($0, ChangeRequest.decode($0), policy: policies.policy(key)) }
            return .json(Array(TemplateJSON.encode(["changeRequests": views])))
        }
    }

    /// `GET …/changeRequests/{id}`: with the diff against its base and, when the template moved
    /// since, against the active version.
    func get(_ exchange: Exchange, key: TemplateKey, id: Int64) {
        exchange.answerFromStore { [self] in
            let (stored, request) = try load(id, key)
            return .json(Array(TemplateJSON.encode(try detailed(stored, request, key: key))))
        }
    }

    /// `POST …/changeRequests` `{"template": {…}}` or `{"rollbackTo": N}`, with `description` and,
    /// for a direct publish scheduled for later, `scheduleTime` (RFC 3339). `If-Match` names the
    /// version it is based on (else the active one).
    func create(_ exchange: Exchange, project: StoredProject, key: TemplateKey, identity: AccessControl.AdminIdentity) throws {
        let proposal = try Proposal(exchange.request.body)
        let actor = actor(identity, project: project, key: key, comment: nil)
        var request = ChangeRequest(kind: .publish, baseVersion: try baseVersion(exchange, project: project, key: key),
                                    description: proposal.description, author: actor.step)
        try fill(&request, from: proposal, key: key)
        let scheduleTime = try proposal.scheduleTime.map(scheduleTime)
        let proposed = try refusing(id: 0, project: project, doing: "propose") {
            try ChangeRequestMachine.propose(request, scheduleTime: scheduleTime, by: actor, policy: policies.policy(key))
        }
        exchange.answerFromStore { [self] in
            let stored = try store.changeRequests.insert(StoredChangeRequest(
                project: key.project, namespace: key.namespace, status: proposed.status.rawValue, scheduleTime: proposed.scheduleTime,
                record: proposed.request.encoded())
            ) { [clock] inserted in
                ChangeEvents.events(proposed.events, inserted, proposed.request, actor: proposed.actor, time: clock.now)
            }
            return .json(Array(TemplateJSON.encode(try detailed(stored, proposed.request, key: key))))
        }
    }

    /// `PATCH …/changeRequests/{id}`: the author (or an admin) replaces the proposal; its
    /// approvals are cleared and it is open again, based on `If-Match` or the active version.
    func edit(_ exchange: Exchange, project: StoredProject, key: TemplateKey, id: Int64, identity: AccessControl.AdminIdentity) throws {
        let proposal = try Proposal(exchange.request.body)
        let base = try baseVersion(exchange, project: project, key: key)
        let actor = actor(identity, project: project, key: key, comment: nil)
        let policy = policies.policy(key)
        exchange.answerFromStore { [self] in
            let (stored, request) = try load(id, key)
            var edited = request
            edited.baseVersion = base
            if let description = proposal.description { edited.description = description }
            if proposal.template != nil || proposal.rollbackTo != nil || proposal.canaryStep != nil {
                try fill(&edited, from: proposal, key: key)
            }
            let transition = try refusing(id: id, project: project, doing: "edit") {
                try ChangeRequestMachine.take(.edit(proposal: edited), status: ChangeRequest.status(of: stored), request: request,
                                              by: actor, policy: policy)
            }
            return try answer(applier.record(transition, of: stored), transition, key: key)
        }
    }

    /// `POST …/changeRequests/{id}:approve|reject|cancel|schedule|apply`, `{"comment", …}`.
    func step(_ exchange: Exchange, project: StoredProject, key: TemplateKey, id: Int64, step: ChangeStep,
              identity: AccessControl.AdminIdentity) throws {
        let body = try ManagementBody(exchange.request.body, fields: ["comment", "scheduleTime", "bypassApproval"])
        let comment = try body.string("comment").map { comment in
            guard comment.count <= Self.maxCommentLength else {
                throw APIError.badRequest("comment must be at most \(Self.maxCommentLength) characters.")
            }
            return comment
        }
        let scheduleTime = try body.string("scheduleTime").map(scheduleTime)
        let bypass = try body.bool("bypassApproval") ?? false
        let machineStep: ChangeRequestMachine.Step
        switch step {
        case .approve: machineStep = .approve
        case .reject: machineStep = .reject
        case .cancel: machineStep = .cancel
        case .schedule:
            guard let scheduleTime else { throw APIError.badRequest("schedule needs 'scheduleTime' (RFC 3339, in the future).") }
            machineStep = .schedule(at: scheduleTime)
        case .apply: machineStep = .apply(bypassApproval: bypass)
        }
        let policy = policies.policy(key)
        let origin = exchange.updateOrigin
        let actor = actor(identity, project: project, key: key, comment: comment)
        exchange.answerWithCommit { [self] in
            let (stored, request) = try load(id, key)
            let transition = try refusing(id: id, project: project, doing: step.rawValue) {
                try ChangeRequestMachine.take(machineStep, status: ChangeRequest.status(of: stored), request: request, by: actor,
                                              policy: policy)
            }
            guard transition.status == .applied else {
                return (try answer(applier.record(transition, of: stored), transition, key: key), nil)
            }
            if transition.request.bypassedApproval {
                audit.bypassed(exchange, actor: identity, key: key, changeRequest: id)
            }
            switch try applier.apply(stored, transition, origin: origin) {
            case .version(_, let served, let announcement):
                return (HTTPResponse.served(served), announcement)
            case .canary(let canary, let serving, let announcement):
                guard let serving else {
                    return (APIError(500, "The canary was stored but cannot be served.").response, announcement)
                }
                return (HTTPResponse.canaryStatus(serving, stableVersion: canary.canaryVersion - 1), announcement)
            case .conflicted(let written):
                let view = try detailed(written, ChangeRequest.decode(written), key: key)
                return (.json(Array(TemplateJSON.encode(view)), status: 409), nil)
            }
        }
    }

    // MARK: Helpers

    private func load(_ id: Int64, _ key: TemplateKey) throws -> (StoredChangeRequest, ChangeRequest) {
        guard let stored = try store.changeRequests.request(id: id), stored.project == key.project, stored.namespace == key.namespace else {
            throw APIError.notFound("No change request \(id) for the \(key.namespace.rawValue) template of project '\(key.project)'.")
        }
        return (stored, try ChangeRequest.decode(stored))
    }

    /// Runs the machine, answering its refusal as the API does.
    private func refusing<Result>(id: Int64, project: StoredProject, doing: String,
                                  _ take: () throws -> Result) throws -> Result {
        do {
            return try take()
        } catch let refusal as ChangeRequestMachine.Refusal {
            throw refusal.apiError(id: id, project: project.id, doing: doing)
        }
    }

    /// The request as a step left it.
    private func answer(_ written: StoredChangeRequest, _ transition: ChangeRequestMachine.Transition,
                        key: TemplateKey) throws -> HTTPResponse {
        .json(Array(TemplateJSON.encode(try detailed(written, transition.request, key: key))))
    }

    /// The request with its diffs (store queue).
    func detailed(_ stored: StoredChangeRequest, _ request: ChangeRequest, key: TemplateKey) throws -> ChangeRequestView {
        var view = ChangeRequestView(stored, request, policy: policies.policy(key))
        let proposed = try proposedTemplate(request, key: key)
        // A promotion changes what the stable version (below the canary) serves.
        let from = request.kind == .canary && request.canaryStep == .promote ? request.baseVersion - 1 : request.baseVersion
        let base = try template(version: from, key: key)
        view.diff = proposed.map { TemplateDiff(from: base ?? RemoteConfigTemplate(), to: $0) }
        let active = templates.currentVersion(key)
        if ChangeStatus(rawValue: stored.status) != .applied, active != request.baseVersion, let proposed {
            view.activeVersion = active
            view.diffAgainstActive = TemplateDiff(from: try template(version: active, key: key) ?? RemoteConfigTemplate(), to: proposed)
        }
        return view
    }

    private func proposedTemplate(_ request: ChangeRequest, key: TemplateKey) throws -> RemoteConfigTemplate? {
        switch request.kind {
        case .publish: request.template
        case .rollback: try request.rollbackTo.flatMap { try template(version: $0, key: key) }
        case .canary:
            switch request.canaryStep {
            case .start?: request.template
            case .promote?: try template(version: request.baseVersion, key: key)
            case .abort?: try template(version: request.baseVersion - 1, key: key)
            case .share?, nil: nil
            }
        }
    }

    private func template(version: Int64, key: TemplateKey) throws -> RemoteConfigTemplate? {
        guard version > 0, let stored = try store.templates.version(project: key.project, namespace: key.namespace, number: version) else {
            return nil
        }
        return try? RemoteConfigTemplate.decode(json: Data(stored.templateJSON))
    }

    private func fill(_ request: inout ChangeRequest, from proposal: Proposal, key: TemplateKey) throws {
        request.template = nil
        request.rollbackTo = nil
        request.canaryStep = nil
        request.canaryPercent = nil
        if let step = proposal.canaryStep {
            request.kind = .canary
            request.canaryStep = step
            request.canaryPercent = proposal.canaryPercent
            if step == .start || step == .share, proposal.canaryPercent == nil {
                throw APIError.badRequest("A canary \(step.rawValue) needs canary.percent.")
            }
            if step == .start {
                guard let json = proposal.template else { throw APIError.badRequest("A canary start needs 'template'.") }
                request.template = try validTemplate(json, key: key)
            } else {
                // A step of the running canary is based on the canary version.
                guard let canary = templates.canary(key) else {
                    throw APIError(400, "No canary is running for this template: propose a canary start.",
                                   canonicalStatus: "FAILED_PRECONDITION")
                }
                request.baseVersion = canary.version
            }
        } else if let json = proposal.template {
            request.kind = .publish
            request.template = try validTemplate(json, key: key)
        } else if let target = proposal.rollbackTo {
            guard target > 0 else { throw APIError.badRequest("rollbackTo must be a version number, got \(target).") }
            request.kind = .rollback
            request.rollbackTo = target
        } else {
            throw APIError.badRequest("A change request needs 'template' (a template to publish), 'rollbackTo' (a version) "
                + "or 'canary' (a canary step).")
        }
    }

    private func validTemplate(_ json: [UInt8], key: TemplateKey) throws -> RemoteConfigTemplate {
        var (template, _) = try validation.decodeValidTemplate(json, namespace: key.namespace)
        template.version = nil
        return template
    }

    /// The version `If-Match` names, else the active one.
    func baseVersion(_ exchange: Exchange, project: StoredProject, key: TemplateKey) throws -> Int64 {
        guard let ifMatch = exchange.request.head.headers["If-Match"], ifMatch != "*" else { return templates.currentVersion(key) }
        return try TemplateValidation.expectedVersion(ifMatch: ifMatch, project: project) ?? templates.currentVersion(key)
    }

    /// Who takes a step now, and their role on `project`.
    func actor(_ identity: AccessControl.AdminIdentity, project: StoredProject, key: TemplateKey,
               comment: String?) -> ChangeRequestMachine.Actor {
        ChangeRequestMachine.Actor(
            step: ChangeRequest.Step(principal: identity.id, name: identity.name, comment: comment, time: Timestamp(clock.now)),
            role: identity.role(on: project.id, in: key.namespace.environment))
    }

    /// A time to schedule for: in the future and within `maxScheduleAhead`.
    private func scheduleTime(_ text: String) throws -> Date {
        guard let time = Timestamp(rfc3339: text)?.date else {
            throw APIError.badRequest("scheduleTime must be an RFC 3339 time, got '\(text)'.")
        }
        let ahead = time.timeIntervalSince(clock.now)
        guard ahead > 0, ahead <= Self.maxScheduleAhead else {
            throw APIError.badRequest("scheduleTime must be in the future and within a year, got '\(text)'.")
        }
        return time
    }
}

/// The steps of `…/changeRequests/{id}:step`.
enum ChangeStep: String {
    case approve, reject, cancel, schedule, apply
}
