package import ConfigCore
import ConfigStore
import EventLoop
import Foundation
import HTTP1
package import ServerCore

/// The OpenFeature Remote Evaluation Protocol (docs/openfeature.md): `POST
/// /ofrep/v1/evaluate/flags/{key}`, `POST /ofrep/v1/evaluate/flags` and the bulk answer's
/// event stream, `GET /ofrep/v1/sse`. The client API key names the project; the project's
/// declaration names its template (the client template unless `openFeatureNamespace` says).
package struct OFREPEndpoint: Sendable {
    let templates: TemplateRegistry
    let projects: ProjectDirectory
    let access: AccessControl
    /// The Firebase fetch's throttle: an instance is one client whichever protocol it speaks.
    let throttle: FetchThrottle
    let realtime: RealtimeHub
    let metrics: ServerMetrics
    /// Project id → the namespace its OpenFeature clients read (config file); `firebase` else.
    let namespaces: [String: TemplateNamespace]
    let clock: any WallClock

    package init(templates: TemplateRegistry, projects: ProjectDirectory, access: AccessControl, throttle: FetchThrottle,
                 realtime: RealtimeHub, metrics: ServerMetrics, namespaces: [String: TemplateNamespace], clock: any WallClock) {
        self.templates = templates
        self.projects = projects
        self.access = access
        self.throttle = throttle
        self.realtime = realtime
        self.metrics = metrics
        self.namespaces = namespaces
        self.clock = clock
    }

    /// The answers of bulk polls, for the 304s of the next ones.
    let polls = OFREPPolls()

    /// The path of the event stream the bulk answer lists.
    static let eventStreamPath = "/ofrep/v1/sse"

    /// Evaluates one flag (`flag`) or, for nil, every flag of the project's template.
    func evaluate(_ exchange: Exchange, flag: String?) throws {
        let (clientKey, project, environment) = try authenticate(exchange, flag: flag)
        let key = templateKey(of: project, in: environment)
        // A bulk re-fetch that an event stream prompted names the version it was told of.
        let told = flag == nil && !exchange.uri.query.isEmpty ? exchange.uri["flagConfigEtag"].flatMap { Int64($0) } : nil
        // A bulk poll naming the ETag it was given: its body, hashed once for the lookup of its
        // last answer and for the record. A request without one is not a repeated poll and is
        // not recorded: the poll cache then holds only clients that poll.
        let polled = flag == nil && exchange.request.head.headers.contains("If-None-Match")
        let poll = polled ? OFREPPolls.Body(exchange.request.body) : nil
        if let poll, try answerRepeatedPoll(exchange, poll: poll, key: key, told: told) {
            return
        }
        let request = try OFREPContext(body: exchange.request.body, now: clock.now, defaultPercentSeed: project.percentSeed, flag: flag)
        // Read-your-writes, as the fetch does: the template must be current before answering.
        let active: ActiveTemplate?
        switch templates.servingIfCurrent(key, instance: request.targetingKey, reloaded: exchange.reloaded) {
        case .current(let template) where Self.mayNotHaveHeard(of: told, serving: template, exchange):
            throw ReloadNeeded(.template(key))
        case .current(let template): active = template
        case .stale where exchange.reloaded || exchange.storeUnreadable: active = templates.serving(key, instance: request.targetingKey)
        case .stale: throw ReloadNeeded(.template(key))
        }
        // The client was told of a newer version than this worker could read: never the older
        // one, and never an empty answer for a template not read here.
        if let told, exchange.storeUnreadable, told > active?.versionNumber ?? 0 {
            throw OFREPError(503, .general, "This server has not read version \(told) yet; retry shortly.", key: flag)
        }
        if active == nil, !templates.hasRead(key) {
            throw OFREPError(503, .general, "The store cannot be read and this server has not loaded the flags yet; retry shortly.", key: flag)
        }
        try admit(request.targetingKey, exchange, flag: flag)
        // The context is read in place: a copy of it costs hundreds of instructions.
        let answer: OFREPAnswer
        var outcomes: ConditionOutcomes?
        if let active {
            let evaluated = active.conditionOutcomes(for: request.evaluation)
            answer = active.ofrepAnswer(for: evaluated, client: request.evaluation, flag: flag, metrics: metrics)
            outcomes = evaluated
        } else {
            answer = OFREPAnswer.noTemplate
        }
        realtime.recordFetch(key: key, version: answer.templateVersion, instance: request.targetingKey)
        guard let flag else {
            if let active, let poll, let outcomes {
                polls.record(OFREPPolls.Answer(template: active, targetingKey: request.targetingKey, answer: answer, outcomes: outcomes,
                                               appVersion: request.evaluation.appVersion, platform: request.evaluation.platform), for: poll)
            }
            return answerBulk(exchange, answer, polled: polled, clientKey: clientKey, targetingKey: request.targetingKey)
        }
        guard let item = answer.items[flag] else {
            throw OFREPError(404, .flagNotFound, "Flag '\(flag)' was not found.", key: flag)
        }
        exchange.respond(.json(item.bytes, status: item.succeeded ? 200 : 400))
    }

    /// The fetch's throttle, per targeting key: 429 with `Retry-After`.
    private func admit(_ targetingKey: String, _ exchange: Exchange, flag: String?) throws(OFREPError) {
        guard let wait = throttle.admit(targetingKey, now: exchange.context.loop.now) else { return }
        metrics.recordThrottled()
        var error = OFREPError(429, .general, "Too many evaluations for this targeting key; retry after \(wait) s.", key: flag)
        error.headers.add(name: "Retry-After", value: "\(wait)")
        throw error
    }

    /// Whether the client was told of a version newer than `served` (`told`, its re-fetch's
    /// `flagConfigEtag`) and the store was not read for this request yet. Another node's event
    /// stream may tell it before this node's listener hears of the commit; then this node's
    /// template looks current, and only the store knows better. Read once: a version no one
    /// published gets the store's answer, not another read.
    private static func mayNotHaveHeard(of told: Int64?, serving served: ActiveTemplate?, _ exchange: Exchange) -> Bool {
        guard let told, !exchange.reloaded, !exchange.storeUnreadable else { return false }
        return told > (served?.versionNumber ?? 0)
    }

    /// A 304 without parsing or evaluating, for a client that polls with the body of an earlier
    /// poll and the ETag it was given, while the same template is served to it (read-your-writes
    /// holds: the template is current, and no newer version was named in `told`). False when
    /// the request needs the whole evaluation.
    private func answerRepeatedPoll(_ exchange: Exchange, poll: OFREPPolls.Body, key: TemplateKey, told: Int64?) throws(OFREPError) -> Bool {
        guard let last = polls.answer(for: poll), last.template.key == key,
              case .current(let served?) = templates.servingIfCurrent(key, instance: last.targetingKey, reloaded: exchange.reloaded),
              served === last.template, !Self.mayNotHaveHeard(of: told, serving: served, exchange),
              Self.namesETag(exchange, last.answer.etag) else { return false }
        try admit(last.targetingKey, exchange, flag: nil)
        served.countRepeatedAnswer(for: last.outcomes, appVersion: last.appVersion, platform: last.platform, at: clock.now)
        realtime.recordFetch(key: key, version: served.versionNumber, instance: last.targetingKey)
        exchange.respond(HTTPResponse(status: 304, encodedFields: last.answer.notModifiedFields))
        return true
    }

    /// 304 when `If-None-Match` names the answer's ETag; else the flags, the version and the
    /// event stream that tells this client of the next publish.
    private func answerBulk(_ exchange: Exchange, _ answer: OFREPAnswer, polled: Bool, clientKey: String, targetingKey: String) {
        if polled, Self.namesETag(exchange, answer.etag) {
            return exchange.respond(HTTPResponse(status: 304, encodedFields: answer.notModifiedFields))
        }
        // The stream's address carries the key: a browser's EventSource sends no fields.
        // It is a secret, as ADR-0008 says the address may be; the access log redacts `key`.
        // The event streams first: the flags that follow are the cached bytes, sent as they are.
        var streams = Self.eventStreamStart
        streams.reserveCapacity(streams.count + 64 + 3 * (clientKey.utf8.count + targetingKey.utf8.count))
        Self.appendQueryValue(clientKey, to: &streams)
        streams.append(contentsOf: Self.targetingKeyParameter)
        Self.appendQueryValue(targetingKey, to: &streams)
        streams.append(contentsOf: answer.eventStreamEnd)
        exchange.respond(HTTPResponse(status: 200, encodedFields: answer.fields, bodyPrefix: streams, body: answer.bulkBody))
    }

    /// Whether the request's `If-None-Match` names `etag` (read over its bytes: no string made).
    private static func namesETag(_ exchange: Exchange, _ etag: String) -> Bool {
        exchange.request.head.headers.withValue("If-None-Match") { FetchEndpoint.etagMatches($0, etag) } ?? false
    }

    private static let eventStreamStart = Array("{\"eventStreams\":[{\"type\":\"sse\",\"endpoint\":{\"requestUri\":\"\(eventStreamPath)?key=".utf8)
    private static let targetingKeyParameter = Array("&targetingKey=".utf8)

    /// `value` percent-encoded for a query (RFC 3986 unreserved bytes as they are), which is
    /// also safe inside a JSON string.
    static func appendQueryValue(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { utf8 in
            if utf8.allSatisfy(isUnreserved) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                if isUnreserved(byte) {
                    bytes.append(byte)
                } else {
                    bytes.append(UInt8(ascii: "%"))
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0xF)])
                }
            }
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `GET /ofrep/v1/sse?key=…&targetingKey=…&version=N`: holds an event stream on the
    /// real-time hub, beside the Firebase streams. A client that knows an older version than
    /// it should (by the address, or by the last event it heard, `Last-Event-ID`) is told at once.
    func openEventStream(_ exchange: Exchange) throws {
        let (_, project, environment) = try authenticate(exchange, flag: nil)
        let key = templateKey(of: project, in: environment)
        // After its one read (or a store that could not be read), from memory.
        guard exchange.reloaded || exchange.storeUnreadable || templates.isCurrent(key) else { throw ReloadNeeded(.template(key)) }
        let addressed = exchange.uri["version"].flatMap { Int64($0) } ?? 0
        let heard = exchange.request.head.headers["Last-Event-ID"].flatMap { Int64($0) } ?? 0
        realtime.open(exchange, key: key, lastKnown: max(0, addressed, heard), instance: exchange.uri["targetingKey"] ?? "",
                      encoding: .serverSentEvents)
    }

    /// The project's OpenFeature namespace (the client template unless configured) in the
    /// environment its key serves.
    private func templateKey(of project: StoredProject, in environment: EnvironmentID) -> TemplateKey {
        TemplateKey(project: project.id, namespace: (namespaces[project.id] ?? .client).in(environment))
    }

    /// The key the request presents, the project it belongs to and the environment it serves:
    /// 401 without a key, 403 for a key of no project.
    private func authenticate(_ exchange: Exchange, flag: String?) throws(OFREPError) -> (String, StoredProject, EnvironmentID) {
        let headers = exchange.request.head.headers
        // Each looked up only when the one before is absent.
        guard let presented = headers["X-API-Key"] ?? BearerToken.presented(in: headers["Authorization"]) ?? exchange.uri["key"],
              !presented.isEmpty else {
            throw OFREPError(401, .general, "Missing API key: send 'X-API-Key' or 'Authorization: Bearer'.", key: flag)
        }
        guard let owner = access.owner(ofClientKey: presented), let project = projects.project(owner.project) else {
            throw OFREPError(403, .general, "The API key is not a client key of any project.", key: flag)
        }
        return (presented, project, owner.environment)
    }
}
