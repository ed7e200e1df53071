package import ConfigCore
import ConfigStore
import EventLoop
import Foundation
import HTTP1

/// `POST /v1/projects/{p}/namespaces/{ns}:fetch` (spec §3): always 200 with `state`, a string
/// `templateVersion` and an ETag; `NO_CHANGE` when `If-None-Match` matches.
package struct FetchEndpoint: Sendable {
    let templates: TemplateRegistry
    let throttle: FetchThrottle
    let realtime: RealtimeHub
    let metrics: ServerMetrics
    let maxBodyBytes: Int
    let clock: any WallClock

    package init(templates: TemplateRegistry, throttle: FetchThrottle, realtime: RealtimeHub, metrics: ServerMetrics,
                 maxBodyBytes: Int, clock: any WallClock) {
        self.templates = templates
        self.throttle = throttle
        self.realtime = realtime
        self.metrics = metrics
        self.maxBodyBytes = maxBodyBytes
        self.clock = clock
    }

    /// Answers a fetch whose API key was checked.
    func answer(_ exchange: Exchange, project: StoredProject, key: TemplateKey) throws {
        let namespace = key.namespace
        // The body straight into the evaluation context: every fetch reads one.
        let context = try ClientRequest.parseContext(exchange.request.body, limit: maxBodyBytes)
            .context(now: clock.now, defaultPercentSeed: project.percentSeed)
        let instance = try ClientRequest.fetchingInstance(namespace: namespace, appInstanceId: context.appInstanceId,
                                                          randomizationId: context.randomizationId)
        guard context.appId?.isEmpty == false || namespace.kind == .server else {
            throw APIError.badRequest("appId is required.")
        }
        // Read-your-writes (docs/consistency.md), checked here rather than at routing so that
        // the fetch looks its template up once; before the throttle, which a retry would
        // otherwise charge twice.
        let active: ActiveTemplate?
        switch templates.servingIfCurrent(key, instance: instance, reloaded: exchange.reloaded) {
        case .current(let template): active = template
        // It waited for its one read (or the store could not be read): from memory.
        case .stale where exchange.reloaded || exchange.storeUnreadable: active = templates.serving(key, instance: instance)
        case .stale: throw ReloadNeeded(.template(key))
        }
        // Never an empty configuration for a template this worker has not read: the SDK would
        // take it for one. The store could not be read, so the client keeps what it has.
        if active == nil, !templates.hasRead(key) { throw APIError.notLoadedYet }
        if let instance, let wait = throttle.admit(instance, now: exchange.context.loop.now) {
            metrics.recordThrottled()
            var error = APIError(429, "Too many fetches from this app instance; retry after \(wait) s.")
            error.headers.add(name: "Retry-After", value: "\(wait)")
            throw error
        }
        let answer: FetchAnswer
        if let active {
            answer = active.fetchAnswer(for: active.conditionOutcomes(for: context), client: context, metrics: metrics)
        } else {
            answer = FetchAnswer.noTemplate(projectNumber: project.number, namespace: namespace)
        }
        realtime.recordFetch(key: key, version: answer.templateVersion, instance: instance)
        let unchanged = exchange.request.head.headers["If-None-Match"].map { Self.etagMatches($0, answer.etag) } ?? false
        metrics.recordFetch(unchanged: unchanged, canary: active?.isCanary == true)
        exchange.respond(HTTPResponse(status: 200, encodedFields: answer.fields, body: unchanged ? answer.noChangeBody : answer.fullBody))
    }

    /// `*` never matches (spec §3.4: JS sends it when it has no ETag); quotes and `W/` are ignored.
    /// Over the bytes, with no allocation: OFREP's polling clients send it on nearly every request.
    static func etagMatches(_ header: String, _ etag: String) -> Bool {
        var header = header
        return header.withUTF8 { etagMatches($0, etag) }
    }

    /// As ``etagMatches(_:_:)``, over the field's bytes.
    package static func etagMatches(_ field: UnsafeBufferPointer<UInt8>, _ etag: String) -> Bool {
        var etag = etag
        return etag.withUTF8 { tag in
            var start = 0
            // Each comma-separated candidate, the empty ones too.
            while start <= field.count {
                var end = start
                while end < field.count, field[end] != UInt8(ascii: ",") { end += 1 }
                if candidate(field[start ..< end], equals: tag) { return true }
                start = end + 1
            }
            return false
        }
    }

    private static func candidate(_ candidate: Slice<UnsafeBufferPointer<UInt8>>, equals tag: UnsafeBufferPointer<UInt8>) -> Bool {
        var lower = candidate.startIndex, upper = candidate.endIndex
        while lower < upper, candidate[lower] == 0x20 || candidate[lower] == 0x09 { lower += 1 }
        while lower < upper, candidate[upper - 1] == 0x20 || candidate[upper - 1] == 0x09 { upper -= 1 }
        if upper - lower >= 2, candidate[lower] == UInt8(ascii: "W"), candidate[lower + 1] == UInt8(ascii: "/") { lower += 2 }
        if upper - lower >= 2, candidate[lower] == UInt8(ascii: "\""), candidate[upper - 1] == UInt8(ascii: "\"") {
            lower += 1
            upper -= 1
        }
        // Compared as memory: `elementsEqual` over a slice is a generic loop.
        guard upper - lower == tag.count else { return false }
        return tag.isEmpty || memcmp(candidate.base.baseAddress! + lower, tag.baseAddress!, tag.count) == 0
    }
}
