import ConfigCore
package import ConfigStore
import EventLoop
import Foundation
import HTTP1
package import ServerCore

/// The management API of spec §2: get, publish, validate.
package struct TemplateAdminEndpoint: Sendable {
    let store: any TemplateStore
    let templates: TemplateRegistry
    let validation: TemplateValidation
    let updates: TemplateUpdates
    /// Where a publish with `canaryPercent` goes.
    let canaries: CanaryAdminEndpoint

    package init(store: any TemplateStore, templates: TemplateRegistry, validation: TemplateValidation, updates: TemplateUpdates,
                 canaries: CanaryAdminEndpoint) {
        self.store = store
        self.templates = templates
        self.validation = validation
        self.updates = updates
        self.canaries = canaries
    }

    /// `GET …/remoteConfig[?versionNumber=N]` (spec §2.3); before the first publish an empty
    /// template with ETag `etag-<number>-0`.
    func get(_ exchange: Exchange, project: StoredProject, key: TemplateKey) throws {
        if let requested = exchange.uri.parameter("versionNumber") {
            let number = try VersionAdminEndpoint.versionNumber(requested, field: "versionNumber")
            exchange.answerFromStore { [self] in
                guard let stored = try store.version(project: key.project, namespace: key.namespace, number: number) else {
                    throw APIError.notFound("Version \(number) of project '\(project.id)' not found (never published or no longer retained).")
                }
                let active = try ActiveTemplate(stored: stored, projectNumber: project.number)
                return .template(active.rendered, etag: active.etag)
            }
            return
        }
        if let active = templates.active(key) {
            exchange.respond(.template(active.rendered, etag: active.etag))
        } else {
            let empty = Array(TemplateJSON.encode(RemoteConfigTemplate()))
            exchange.respond(.template(empty, etag: TemplateETag(projectNumber: project.number, versionNumber: 0).description))
        }
    }

    /// `PUT …/remoteConfig` with `If-Match` (spec §2.4).
    func publish(_ exchange: Exchange, project: StoredProject, key: TemplateKey, identity: AccessControl.AdminIdentity) throws {
        guard let ifMatch = exchange.request.head.headers["If-Match"]?.trimmingCharacters(in: .whitespaces), !ifMatch.isEmpty else {
            throw APIError.badRequest("The If-Match header is required: send the ETag of the template you edited, or '*' to force.")
        }
        var (template, compiled) = try validation.decodeValidTemplate(exchange.request.body, namespace: key.namespace)
        let description = template.version?.description
        template.version = nil
        // A validation checks the If-Match too (spec §2.9: a misformatted ETag fails it).
        let expected = try TemplateValidation.expectedVersion(ifMatch: ifMatch, project: project)
        let canaryShare = try CanaryAdminEndpoint.canaryShare(exchange)
        if Self.isValidateOnly(exchange) {
            let etag = TemplateETag.validateOnly(projectNumber: project.number).description
            exchange.respond(.template(Array(TemplateJSON.encode(template)), etag: etag))
            return
        }
        let metadata = PublishMetadata(
            updateUser: identity.name, description: description, updateOrigin: exchange.updateOrigin,
            updateType: expected == nil ? UpdateType.forcedUpdate : UpdateType.incrementalUpdate)
        let json = Array(TemplateJSON.encode(template))
        // Compiled once, here: what serves the new version is this, with its version block.
        let unversioned = compiled.withVersion(nil)
        if let canaryShare {
            return try canaries.publish(exchange, project: project, key: key, json: json, compiled: unversioned,
                                        expected: expected, share: canaryShare, metadata: metadata)
        }
        exchange.answerWithCommit(project: project, expectedVersion: expected) { [self] in
            let stored = try store.publish(project: key.project, namespace: key.namespace, templateJSON: json,
                                           expectedVersion: expected, metadata: metadata)
            let (served, announcement) = updates.committed(stored, compiled: unversioned)
            return (HTTPResponse.served(served), announcement)
        }
    }

    /// `POST …/remoteConfig:check`: the problems the server finds in the template in the body,
    /// `{"issues": [{"path", "message"}]}` (`[]` when it would publish), answered 200 either way;
    /// nothing is stored or audited. The console checks a value or a rule as it is typed with a
    /// template holding only that, so the template's rules live only here.
    func check(_ exchange: Exchange, key: TemplateKey) throws {
        struct Issues: Encodable {
            let issues: [TemplateValidationError.Issue]
        }
        let issues = try validation.problems(in: exchange.request.body, namespace: key.namespace)
        exchange.respond(.json(Array(TemplateJSON.encode(Issues(issues: issues)))))
    }

    /// Whether a `PUT` only validates (`validateOnly=true`): it publishes nothing.
    static func isValidateOnly(_ exchange: Exchange) -> Bool {
        isValidateOnly(exchange.uri)
    }

    /// Whether a `PUT` to `uri` only validates.
    static func isValidateOnly(_ uri: RequestURI) -> Bool {
        let value = uri.parameter("validateOnly")
        return value?.lowercased() == "true" || value == "1"
    }
}
