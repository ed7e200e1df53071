import ConfigCore
import ConfigStore
import Foundation
import HTTP1
import ServerCore

/// Promoting one environment's template into another (docs/environments.md, "Promote"): a new
/// version of the target made from the source's active (or named) version, whole or the chosen
/// parameters and conditions. It is a change of the target under change control's rules: where
/// the target's policy asks approvals it becomes a change request, reviewed as any other.
extension ChangeRequestEndpoint {
    /// What a promotion names, read from its body.
    private struct Promotion {
        let from: EnvironmentID
        let version: Int64?
        let parameters: [String]?
        let conditions: [String]?
        let description: String?

        init(_ body: [UInt8], into key: TemplateKey, of project: StoredProject, environments: [StoredEnvironment]) throws {
            let members = try ManagementBody(body, fields: ["from", "version", "parameters", "conditions", "description"])
            guard let named = try members.string("from") else {
                throw APIError.badRequest("A promotion names the environment it comes 'from'.")
            }
            guard let from = EnvironmentID(rawValue: named), environments.contains(where: { $0.id == from }) || from == .production else {
                throw APIError.badRequest("Project '\(project.id)' has no environment '\(named)'.")
            }
            guard from != key.namespace.environment else { throw APIError.badRequest("An environment is not promoted into itself.") }
            self.from = from
            version = try members.integer("version")
            if let version, version < 1 { throw APIError.badRequest("version must be a version number (1 or more), got \(version).") }
            parameters = try members.strings("parameters", describing: "parameter keys")
            conditions = try members.strings("conditions", describing: "condition names")
            description = try members.string("description")
            if !isWhole, (parameters ?? []).isEmpty, (conditions ?? []).isEmpty {
                throw APIError.badRequest("Name at least one parameter or condition, or leave both out to promote the whole template.")
            }
        }

        /// Whole templates are promoted as the source version's bytes.
        var isWhole: Bool { parameters == nil && conditions == nil }
    }

    /// The answer's envelope: where the promotion came from, and what it made.
    private struct Promoted: Encodable {
        let promotedFrom: String
        let environment: String
        let changeRequest: ChangeRequestView?
    }

    /// `POST …/environments/{to}/remoteConfig:promoteFrom` `{"from", "version"?, "parameters"?,
    /// "conditions"?, "description"?}`, `If-Match` naming the target's version it expects (else
    /// its active one). Answers `{"promotedFrom": "staging/14", "environment", "template"}` with
    /// the new version's ETag, or `{…, "changeRequest"}` where the target needs approvals.
    func promote(_ exchange: Exchange, project: StoredProject, key: TemplateKey, identity: AccessControl.AdminIdentity) throws {
        let policy = policies.policy(key)
        let target = projects.environments(of: project.id)
        let promotion = try Promotion(exchange.request.body, into: key, of: project, environments: target)
        let base = try baseVersion(exchange, project: project, key: key)
        let soak = target.first { $0.id == key.namespace.environment }?.soakSeconds ?? 0
        let source = TemplateKey(project: key.project, namespace: key.namespace.in(promotion.from))
        let now = clock.now
        if policy.requiresApproval {
            let actor = actor(identity, project: project, key: key, comment: nil)
            exchange.answerFromStore { [self] in
                let (origin, template, _) = try promoted(promotion, from: source, into: key, base: base, soak: soak, now: now)
                var request = ChangeRequest(kind: .publish, baseVersion: base, description: promotion.description ?? Self.describe(origin),
                                            author: actor.step)
                request.template = template
                request.promotedFrom = origin
                let proposed = try ChangeRequestMachine.propose(request, scheduleTime: nil, by: actor, policy: policy)
                let stored = try store.changeRequests.insert(StoredChangeRequest(
                    project: key.project, namespace: key.namespace, status: proposed.status.rawValue, scheduleTime: nil,
                    record: proposed.request.encoded())
                ) { [clock] inserted in
                    ChangeEvents.events(proposed.events, inserted, proposed.request, actor: proposed.actor, time: clock.now)
                }
                let view = try detailed(stored, proposed.request, key: key)
                return .json(Array(TemplateJSON.encode(Promoted(promotedFrom: Self.name(origin),
                                                                environment: key.namespace.environment.rawValue, changeRequest: view))))
            }
            return
        }
        exchange.answerWithCommit(project: project, expectedVersion: base) { [self] in
            let (origin, _, json) = try promoted(promotion, from: source, into: key, base: base, soak: soak, now: now)
            let (_, compiled) = try validation.decodeValidTemplate(json, namespace: key.namespace)
            let metadata = PublishMetadata(updateUser: identity.name, description: promotion.description ?? Self.describe(origin),
                                           updateOrigin: exchange.updateOrigin, updateType: .incrementalUpdate, promotedFrom: origin)
            let version = try store.templates.publish(project: key.project, namespace: key.namespace, templateJSON: json,
                                                      expectedVersion: base, metadata: metadata)
            let (served, announcement) = applier.updates.committed(version, compiled: compiled.withVersion(nil))
            guard let served else { return (HTTPResponse.served(nil), announcement) }
            let head = Array(TemplateJSON.encode(Promoted(promotedFrom: Self.name(origin), environment: key.namespace.environment.rawValue,
                                                          changeRequest: nil)).dropLast())
            return (.template(head + Array(",\"template\":".utf8) + served.rendered + [UInt8(ascii: "}")], etag: served.etag), announcement)
        }
    }

    /// The source version, the template the promotion makes of it and the target's base, and
    /// that template's bytes (the source version's own for a whole template); blocking.
    /// - Throws: 404 for a source version there is none of, 400 for a soak rule not met or parts
    ///   the templates lack, `StoreError` as the store reads throw.
    private func promoted(_ promotion: Promotion, from source: TemplateKey, into key: TemplateKey, base: Int64, soak: Int64,
                          now: Date) throws -> (PromotionSource, RemoteConfigTemplate, [UInt8]) {
        // From the store: this worker may not have read the source's last publish yet.
        let number = try promotion.version
            ?? store.templates.activeVersion(project: source.project, namespace: source.namespace)?.versionNumber ?? 0
        guard number > 0, let stored = try store.templates.version(project: source.project, namespace: source.namespace, number: number) else {
            throw APIError.notFound("Environment '\(promotion.from)' of project '\(key.project)' has no version \(number) of its "
                + "\(key.namespace.kind.rawValue) template.")
        }
        if soak > 0 {
            // Active from its publish until the next version, or until now.
            let next = try store.templates.version(project: source.project, namespace: source.namespace, number: number + 1)
            let active = (next?.updateTime ?? now).timeIntervalSince(stored.updateTime)
            guard active >= Double(soak) else {
                throw APIError(400, "[SOAK_NOT_MET]: Version \(number) of '\(promotion.from)' was active for \(Int(active)) s; "
                    + "'\(key.namespace.environment)' takes only versions active for \(soak) s in the environment before it.",
                    canonicalStatus: "FAILED_PRECONDITION")
            }
        }
        let origin = PromotionSource(environment: promotion.from, versionNumber: number)
        let sourceTemplate = try RemoteConfigTemplate.decode(json: Data(stored.templateJSON))
        if promotion.isWhole { return (origin, sourceTemplate, stored.templateJSON) }
        let targetTemplate = try base > 0
            ? store.templates.version(project: key.project, namespace: key.namespace, number: base)
                .map { try RemoteConfigTemplate.decode(json: Data($0.templateJSON)) } ?? RemoteConfigTemplate()
            : RemoteConfigTemplate()
        do {
            let template = try TemplatePromotion.promote(parameters: promotion.parameters ?? [], conditions: promotion.conditions ?? [],
                                                         of: sourceTemplate, into: targetTemplate)
            return (origin, template, Array(TemplateJSON.encode(template)))
        } catch {
            throw APIError.badRequest("Cannot promote from '\(promotion.from)': \(error.description).")
        }
    }

    private static func name(_ origin: PromotionSource) -> String {
        "\(origin.environment.rawValue)/\(origin.versionNumber)"
    }

    private static func describe(_ origin: PromotionSource) -> String {
        "Promoted from \(origin.environment.rawValue) version \(origin.versionNumber)"
    }
}
