package import ConfigCore
package import ConfigStore
import EventLoop
import Foundation
import HTTP1
package import ServerCore

/// Staged publishes (docs/canary.md), beyond Firebase: `PUT …/remoteConfig?canaryPercent=P`
/// starts a canary, `…/remoteConfig:canary` shows it (GET) or grows its share (POST),
/// `…/remoteConfig:promote` and `…/remoteConfig:abort` end it.
package struct CanaryAdminEndpoint: Sendable {
    let store: any TemplateStore
    let templates: TemplateRegistry
    let updates: TemplateUpdates
    let clock: any WallClock

    package init(store: any TemplateStore, templates: TemplateRegistry, updates: TemplateUpdates, clock: any WallClock) {
        self.store = store
        self.templates = templates
        self.updates = updates
        self.clock = clock
    }

    /// The share of `canaryPercent` (query) in micro-percent, or nil when the PUT is a plain one.
    static func canaryShare(_ exchange: Exchange) throws -> Int64? {
        guard let text = exchange.uri.parameter("canaryPercent") else { return nil }
        return try share(text, field: "canaryPercent")
    }

    private static func share(_ text: String, field: String) throws -> Int64 {
        guard let percent = Double(text), percent > 0, percent <= 100 else {
            throw APIError.badRequest("\(field) must be a number above 0 and at most 100, got '\(text)'.")
        }
        return Int64(InstanceAssignment.microPercent(percent))
    }

    /// `promoteAfterSeconds` (query): promote by itself after that long.
    private func promoteAt(_ exchange: Exchange) throws -> Date? {
        guard let text = exchange.uri.parameter("promoteAfterSeconds") else { return nil }
        guard let seconds = Int(text), seconds > 0 else {
            throw APIError.badRequest("promoteAfterSeconds must be a positive integer, got '\(text)'.")
        }
        return clock.now.addingTimeInterval(TimeInterval(seconds))
    }

    /// Stores a validated template as a canary and serves it to `share` of the instances.
    /// - Parameter compiled: `json`'s template, compiled while it was validated.
    func publish(_ exchange: Exchange, project: StoredProject, key: TemplateKey, json: [UInt8], compiled: CompiledTemplate,
                 expected: Int64?, share: Int64, metadata: PublishMetadata) throws {
        let promoteAt = try promoteAt(exchange)
        // Each canary draws its own instances: a fresh seed, kept in the store for every worker.
        let seed = "canary-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        exchange.answerWithCommit { [self] in
            let (version, canary) = try storeCall(project) {
                try store.publishCanary(project: key.project, namespace: key.namespace, templateJSON: json, expectedVersion: expected,
                                        microPercent: share, seed: seed, promoteAt: promoteAt, metadata: metadata)
            }
            let (serving, announcement) = updates.committedCanary(canary, version: version, compiled: compiled)
            guard let serving else {
                return (APIError(500, "The canary was stored but cannot be served.").response, announcement)
            }
            return (.template(serving.template.rendered, etag: serving.template.etag), announcement)
        }
    }

    /// `GET …/remoteConfig:canary`: the running canary, with the canary version's ETag.
    func status(_ exchange: Exchange, project: StoredProject, key: TemplateKey) throws {
        guard let canary = templates.canary(key) else {
            throw APIError.notFound("No canary is running for project '\(project.id)'.")
        }
        respond(exchange, canary)
    }

    /// `POST …/remoteConfig:canary` with `{"percent": P}` (or `?percent=P`) and the canary's
    /// ETag in `If-Match`: a larger share; only the instances it adds are told.
    func grow(_ exchange: Exchange, project: StoredProject, key: TemplateKey, identity: AccessControl.AdminIdentity) throws {
        let expected = try expectedCanary(exchange, project: project)
        // The body is read even when the query has the share: a bad one is refused, not skipped.
        let body = try ManagementBody(exchange.request.body, fields: ["percent"])
        guard let text = try exchange.uri["percent"] ?? body.numberText("percent") else { throw APIError.badRequest("A canary share needs 'percent' in the body or the query.") }
        let share = try Self.share(text, field: "percent")
        exchange.answerWithCommit { [self] in
            let canary = try storeCall(project) {
                try store.setCanaryShare(project: key.project, namespace: key.namespace, expectedCanary: expected,
                                         microPercent: share, updateUser: identity.name)
            }
            let (serving, announcement) = updates.committedCanary(canary, version: nil)
            guard let serving else {
                return (APIError(500, "The share was stored but cannot be served.").response, announcement)
            }
            return (HTTPResponse.canaryStatus(serving, stableVersion: templates.currentVersion(key)), announcement)
        }
    }

    /// `POST …/remoteConfig:promote` (`promote: true`) or `…:abort`, with the canary's ETag in
    /// `If-Match`: a new active version for everyone, recorded as `CANARY_PROMOTION` or
    /// `CANARY_ABORT`.
    func end(_ exchange: Exchange, project: StoredProject, key: TemplateKey, identity: AccessControl.AdminIdentity, promote: Bool) throws {
        let expected = try expectedCanary(exchange, project: project)
        let metadata = PublishMetadata(updateUser: identity.name, updateOrigin: exchange.updateOrigin,
                                       updateType: expected == nil ? UpdateType.forcedUpdate : UpdateType.incrementalUpdate)
        exchange.answerWithCommit { [self] in
            let stored = try storeCall(project) {
                promote
                    ? try store.promoteCanary(project: key.project, namespace: key.namespace, expectedCanary: expected, metadata: metadata)
                    : try store.abortCanary(project: key.project, namespace: key.namespace, expectedCanary: expected, metadata: metadata)
            }
            let (served, announcement) = updates.committed(stored)
            return (HTTPResponse.served(served), announcement)
        }
    }

    /// The canary version named by `If-Match` (nil for `*`); required.
    private func expectedCanary(_ exchange: Exchange, project: StoredProject) throws -> Int64? {
        guard let ifMatch = exchange.request.head.headers["If-Match"]?.trimmingCharacters(in: .whitespaces), !ifMatch.isEmpty else {
            throw APIError.badRequest("The If-Match header is required: send the ETag of the canary version (GET remoteConfig:canary), or '*'.")
        }
        return try TemplateValidation.expectedVersion(ifMatch: ifMatch, project: project)
    }

    /// Runs a canary store call, mapping its errors to API errors.
    private func storeCall<Result>(_ project: StoredProject, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as StoreError {
            throw APIError(error, project: project)
        }
    }

    private func respond(_ exchange: Exchange, _ canary: CanaryServing) {
        exchange.respond(HTTPResponse.canaryStatus(canary, stableVersion: templates.currentVersion(canary.template.key)))
    }
}
