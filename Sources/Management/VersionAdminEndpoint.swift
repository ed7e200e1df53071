package import ConfigCore
package import ConfigStore
import EventLoop
import Foundation
import HTTP1
package import ServerCore

/// Version history (spec §2.5, §2.6) and the endpoints beyond Firebase: diff, dry-run
/// evaluation, defaults download, the compiled server template.
package struct VersionAdminEndpoint: Sendable {
    let store: any TemplateStore
    let templates: TemplateRegistry
    /// The projects' environments, which `:compare` names.
    let projects: ProjectDirectory
    let updates: TemplateUpdates
    let maxBodyBytes: Int
    let clock: any WallClock

    package init(store: any TemplateStore, templates: TemplateRegistry, projects: ProjectDirectory, updates: TemplateUpdates,
                 maxBodyBytes: Int, clock: any WallClock) {
        self.store = store
        self.templates = templates
        self.projects = projects
        self.updates = updates
        self.maxBodyBytes = maxBodyBytes
        self.clock = clock
    }

    private struct VersionList: Encodable {
        let versions: [TemplateVersion]
        let nextPageToken: String?
    }

    /// `GET …/remoteConfig:listVersions`, newest first.
    func list(_ exchange: Exchange, key: TemplateKey) throws {
        let uri = exchange.uri
        let pageSize = try uri.pageSize(in: 1...300)
        let endVersion = try uri.parameter("endVersionNumber").map {
            try Self.versionNumber($0, field: "endVersionNumber")
        }
        let startTime = try uri.time("startTime")
        let endTime = try uri.time("endTime")
        let pageToken = uri.parameter("pageToken")
        exchange.answerFromStore { [self] in
            let page = try store.listVersions(
                project: key.project, namespace: key.namespace, pageSize: pageSize, pageToken: pageToken,
                endVersionNumber: endVersion, startTime: startTime, endTime: endTime)
            let list = VersionList(versions: page.versions.map(TemplateVersion.init), nextPageToken: page.nextPageToken)
            return .json(Array(TemplateJSON.encode(list)))
        }
    }

    /// `POST …/remoteConfig:rollback` with `versionNumber` in the body or the query.
    func rollback(_ exchange: Exchange, project: StoredProject, key: TemplateKey, identity: AccessControl.AdminIdentity) throws {
        // The body is read even when the query has the version: a bad one is refused, not skipped.
        let body = try ManagementBody(exchange.request.body, fields: ["versionNumber"])
        guard let text = try exchange.uri.parameter("versionNumber") ?? body.integer("versionNumber").map(String.init) else { throw APIError.badRequest("rollback needs 'versionNumber' in the body or the query.") }
        let target = try Self.versionNumber(text, field: "versionNumber")
        let metadata = PublishMetadata(updateUser: identity.name, description: nil, updateOrigin: exchange.updateOrigin,
                                       updateType: UpdateType.rollback)
        exchange.answerWithCommit(project: project) { [self] in
            let stored = try store.rollback(project: key.project, namespace: key.namespace, to: target, metadata: metadata)
            let (served, announcement) = updates.committed(stored)
            return (HTTPResponse.served(served), announcement)
        }
    }

    /// `GET …/remoteConfig:diff?from=A&to=B` (B defaults to the active version).
    func diff(_ exchange: Exchange, project: StoredProject, key: TemplateKey) throws {
        guard let fromText = exchange.uri["from"] else { throw APIError.badRequest("diff needs 'from' (a version number).") }
        let from = try Self.versionNumber(fromText, field: "from")
        let to = try exchange.uri["to"].map { try Self.versionNumber($0, field: "to") }
        exchange.answerFromStore { [self] in
            let target = to ?? templates.currentVersion(key)
            let diff = TemplateDiff(from: try version(from, of: key, project: project), to: try version(target, of: key, project: project))
            return .json(Array(TemplateJSON.encode(VersionDiff(from: "\(from)", to: "\(target)", diff: diff))))
        }
    }

    /// `GET …/environments/{e}/remoteConfig:compare?with=E2`: what this environment's active
    /// template has against `with`'s (the same kind of template): the `:diff` answer from
    /// `with`'s active version to this one's, both environments named.
    func compare(_ exchange: Exchange, project: StoredProject, key: TemplateKey) throws {
        struct Comparison: Encodable {
            let environment: String
            let with: String
            let from: String
            let to: String
            let diff: TemplateDiff
        }
        guard let named = exchange.uri["with"] else { throw APIError.badRequest("compare needs 'with' (an environment's id).") }
        guard let other = EnvironmentID(rawValue: named),
              other == .production || projects.environments(of: project.id).contains(where: { $0.id == other }) else {
            throw APIError.badRequest("Project '\(project.id)' has no environment '\(named)'.")
        }
        let with = TemplateKey(project: key.project, namespace: key.namespace.in(other))
        exchange.answerFromStore { [self] in
            // From the store: this worker may not have read the other environment's last publish yet.
            let from = try store.activeVersion(project: with.project, namespace: with.namespace)?.versionNumber ?? 0
            let to = try store.activeVersion(project: key.project, namespace: key.namespace)?.versionNumber ?? 0
            let diff = TemplateDiff(from: try version(from, of: with, project: project), to: try version(to, of: key, project: project))
            return .json(Array(TemplateJSON.encode(Comparison(environment: key.namespace.environment.rawValue, with: other.rawValue,
                                                              from: "\(from)", to: "\(to)", diff: diff))))
        }
    }

    /// `POST …/remoteConfig:diff?from=A`: what publishing the template in the body would change
    /// against version A (default: the active version; 0: nothing), in the `:diff` answer's shape without
    /// `to`. The console's review shows this, so the diff's rules live only here.
    func diffDraft(_ exchange: Exchange, project: StoredProject, key: TemplateKey) throws {
        // `from=0` names the empty template (a draft of a template never published).
        let from = try exchange.uri["from"].map { $0 == "0" ? 0 : try Self.versionNumber($0, field: "from") }
        guard !exchange.request.body.isEmpty else { throw APIError.badRequest("The request body must be a template (JSON object).") }
        try ManagementBody.requireUTF8(exchange.request.body)
        let draft: RemoteConfigTemplate
        do {
            draft = try RemoteConfigTemplate.decode(json: Data(exchange.request.body))
        } catch {
            throw APIError.invalidTemplate(error)
        }
        struct DraftDiff: Encodable {
            let from: String
            let diff: TemplateDiff
        }
        exchange.answerFromStore { [self] in
            // No version yet: the draft is all additions.
            let base = from ?? templates.currentVersion(key)
            let template = try version(base, of: key, project: project)
            return .json(Array(TemplateJSON.encode(DraftDiff(from: "\(base)", diff: TemplateDiff(from: template, to: draft)))))
        }
    }

    /// Version `number` of `key` (0: the empty template), read from the store (blocking); 404
    /// when there is none.
    private func version(_ number: Int64, of key: TemplateKey, project: StoredProject) throws -> RemoteConfigTemplate {
        guard let template = try VersionDiff.template(number, of: key, in: store) else {
            throw APIError.notFound("Version \(number) of project '\(project.id)' not found.")
        }
        return template
    }

    /// `POST …/remoteConfig:evaluate`: what a client with this context would get, and why.
    func evaluate(_ exchange: Exchange, project: StoredProject, key: TemplateKey) throws {
        // A client's context, read as a fetch's body is (either spelling, lenient), but UTF-8.
        try ManagementBody.requireUTF8(exchange.request.body)
        let request = try ClientRequest.parseBody(exchange.request.body, limit: maxBodyBytes)
        let context = request.evaluationContext(now: clock.now, defaultPercentSeed: project.percentSeed)
        // An instance in a running canary's share is shown the canary version.
        guard let active = templates.serving(key, instance: request.string("appInstanceId") ?? "") else {
            throw APIError.notFound("Project '\(project.id)' has no '\(key.namespace.rawValue)' template yet.")
        }
        let outcomes = active.compiled.conditionOutcomes(for: context)
        let entries = Dictionary(active.compiled.entries(for: outcomes).map { ($0.key, $0.value) }) { first, _ in first }
        let answer = EvaluationAnswer(templateVersion: "\(active.versionNumber)", entries: entries,
                                      explanation: active.compiled.explain(for: outcomes))
        // The same evaluation as OFREP encodes it: its bulk answer's flags and metadata.
        let openFeature = OFREPAnswer(compiled: active.compiled, shape: active.ofrepShape, outcomes: outcomes,
                                      templateVersion: active.versionNumber)
        var body = Array(TemplateJSON.encode(answer))
        guard body.last == UInt8(ascii: "}") else { preconditionFailure("an encoded object ends with '}'") }
        body.removeLast()
        body += ",\"openFeature\":{".utf8
        body += openFeature.bulkBody
        body += "}".utf8
        exchange.respond(.json(body))
    }

    private struct EvaluationAnswer: Encodable {
        let templateVersion: String
        let entries: [String: String]
        let explanation: TemplateExplanation
    }

    /// `GET …/remoteConfig:downloadDefaults?format=JSON|XML|PLIST` (spec §2.7).
    func downloadDefaults(_ exchange: Exchange, key: TemplateKey) throws {
        let format = (exchange.uri["format"] ?? "JSON").uppercased()
        var defaults: [(String, String)] = []
        if let template = templates.active(key)?.template {
            for entry in template.allParameters {
                if case .value(let value)? = entry.parameter.defaultValue { defaults.append((entry.key, value)) }
            }
        }
        let body: String
        var headers = HTTPHeaders()
        switch format {
        case "JSON":
            body = String(decoding: TemplateJSON.encode(Dictionary(defaults) { first, _ in first }), as: UTF8.self)
            headers.add(name: "Content-Type", value: HTTPResponse.jsonContentType)
        case "XML":
            body = DefaultsDocument.androidXML(defaults)
            headers.add(name: "Content-Type", value: "application/xml; charset=utf-8")
        case "PLIST":
            body = DefaultsDocument.plist(defaults)
            headers.add(name: "Content-Type", value: "application/x-plist; charset=utf-8")
        default:
            throw APIError.badRequest("format must be JSON, XML or PLIST, got '\(format)'.")
        }
        exchange.respond(HTTPResponse(status: 200, headers: headers, body: Array(body.utf8)))
    }

    /// `GET …/namespaces/firebase-server/serverRemoteConfig` (spec §5.1).
    func serverTemplate(_ exchange: Exchange, project: StoredProject) throws {
        let key = TemplateKey(project: project.id, namespace: .server)
        guard let active = templates.active(key) else {
            throw APIError.notFound("Project '\(project.id)' has no server template yet.")
        }
        exchange.respond(.template(Array(TemplateJSON.encode(active.compiled.serverRemoteConfig)), etag: active.etag))
    }

    /// A version number from the query or a body: a positive integer, else a 400 naming `field`.
    static func versionNumber(_ text: String, field: String) throws -> Int64 {
        guard let number = Int64(text), number > 0 else {
            throw APIError.badRequest("\(field) must be a positive integer, got '\(text)'.")
        }
        return number
    }
}
