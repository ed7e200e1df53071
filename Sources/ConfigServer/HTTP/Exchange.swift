import CLinuxIO
import ConfigCore
import ConfigStore
import EventLoop
import HTTP1
import Dispatch
import Logging

/// One request being answered: what came in and how to reply.
struct Exchange: Sendable {
    let request: HTTPRequest
    let uri: RequestURI
    let context: RequestContext
    let responder: Responder
    let route: Route
    /// What dispatched it: answers are counted there, and a request that must wait for a
    /// reload goes back through it.
    let router: Router
    /// Set when the store could not be read to bring what the request reads up to date: it
    /// is then answered from memory (a config server keeps serving while its store is unwell).
    var storeUnreadable = false
    /// Set once the request waited for its one read of the template it reads (docs/consistency.md):
    /// it is then answered from memory, even if a change was acknowledged since it arrived.
    var reloaded = false

    /// When the request is answered at the latest, whatever it waits for: the store queue's
    /// time-out (`store.requestTimeoutSeconds`) from its arrival.
    var deadline: ContinuousClock.Instant {
        .now + router.storeQueue.timeout - .nanoseconds(rcs_monotonic_nanos() - context.receivedNanos)
    }

    /// The route's label in the metrics.
    var routeLabel: RouteLabel { RouteLabel(route) }

    /// The one way out for every answer of every endpoint, now or later: the fields browser
    /// SDKs need on the routes they call (``CORS``), then the route's metrics.
    func respond(_ response: consuming HTTPResponse) {
        // The client API (the routes browsers call) is never audited: no call on its hot path.
        if isCalledByBrowsers { CORS.addFields(to: &response.headers) } else { router.audit.record(self, response) }
        router.respond(responder, route: routeLabel, response, receivedNanos: context.receivedNanos)
    }

    /// Answers `error` in the route's shape: Google's error body, wrapped in an array on the
    /// stream (spec §1.4); OFREP's error body on its routes.
    func fail(_ error: APIError) {
        switch route {
        case .stream: respond(error.streamResponse)
        case .ofrepEvaluation(let flag): respond(OFREPError(error, key: flag).response)
        case .ofrepEventStream: respond(OFREPError(error, key: nil).response)
        default: respond(error.response)
        }
    }

    /// Starts the stream's chunked answer (loop thread), wrapped as ``respond(_:)`` wraps the
    /// others; nil when the client is gone.
    func startStream(headers: HTTPHeaders, onClose: @escaping () -> Void) -> ResponseStream? {
        var headers = headers
        if isCalledByBrowsers { CORS.addFields(to: &headers) }
        router.recordStreamStarted(route: routeLabel)
        return responder.startStream(headers: headers, onClose: onClose)
    }

    /// Answers once `target` was read again (read-your-writes, docs/consistency.md).
    func answerAfterReload(of target: ReloadTarget) {
        router.answerAfterReload(of: target, self)
    }

    /// What a version this request makes records as its `updateOrigin`: `CONSOLE` when the
    /// web console sent it (it says so in `X-RCS-Origin`), else `REST_API`.
    var updateOrigin: String {
        (request.head.headers["X-RCS-Origin"]?.uppercased() == "CONSOLE" ? UpdateOrigin.console : UpdateOrigin.restAPI).rawValue
    }

    /// Fetch and the stream: the endpoints the web SDK calls cross-origin; OFREP's, which web
    /// providers call so.
    var isCalledByBrowsers: Bool {
        switch route {
        case .fetch, .stream, .ofrepEvaluation, .ofrepEventStream: true
        default: false
        }
    }

    /// 405 unless the method is `method` or `other` (two parameters, not an array: this runs
    /// on every request).
    func allow(_ method: HTTPMethod, or other: HTTPMethod? = nil) throws {
        let used = request.head.method
        guard used == method || used == other else { throw APIError.methodNotAllowed([method] + (other.map { [$0] } ?? [])) }
    }

    /// Runs `work` on the store queue and answers with what it returns or throws.
    /// - Parameters:
    ///   - project, expectedVersion: what the request named, for the wording of a `StoreError`.
    func answerFromStore(
        project: StoredProject? = nil, expectedVersion: Int64? = nil,
        _ work: @escaping @Sendable () throws -> HTTPResponse
    ) {
        let method = request.head.method
        guard method == .get || method == .head || !router.board.isBehind else { return fail(.nodeBehind) }
        answerOnStoreQueue(project: project, expectedVersion: expectedVersion) { (try work(), nil) }
    }

    /// Runs a commit on the store queue, answers with what it returns or throws, then sends the
    /// commit's announcement: the fan-out to held streams starts after the answer is queued.
    ///
    /// The request is answered within `store.requestTimeoutSeconds` of its arrival: if the work
    /// has not answered nor begun to commit by then, it is answered 503 and the work dropped,
    /// never run or committed later (the client was told it failed, so it must not happen
    /// behind its back).
    func answerWithCommit(
        project: StoredProject? = nil, expectedVersion: Int64? = nil,
        _ work: @escaping @Sendable () throws -> (HTTPResponse, TemplateUpdates.Announcement?)
    ) {
        // A node behind its store would acknowledge what its other workers cannot serve yet.
        guard !router.board.isBehind else { return fail(.nodeBehind) }
        answerOnStoreQueue(project: project, expectedVersion: expectedVersion, work)
    }

    private func answerOnStoreQueue(
        project: StoredProject?, expectedVersion: Int64?,
        _ work: @escaping @Sendable () throws -> (HTTPResponse, TemplateUpdates.Announcement?)
    ) {
        let exchange = self
        router.storeQueue.async(by: deadline, { claim in
            do {
                let (response, announcement) = try work()
                guard claim.takeForWork() else { return }
                exchange.respond(response)
                announcement?.send()
            } catch let error as APIError {
                guard claim.takeForWork() else { return }
                exchange.fail(error)
            } catch let error as StoreError {
                guard claim.takeForWork() else { return }
                switch error {
                case .unavailable, .outcomeUnknown, .outOfSpace:
                    exchange.router.logger.error("the store is unavailable", metadata: ["error": "\(error)"])
                default:
                    break
                }
                exchange.fail(APIError(error, project: project, expectedVersion: expectedVersion))
            } catch {
                guard claim.takeForWork() else { return }
                exchange.router.logger.error("store operation failed", metadata: ["error": "\(error)"])
                exchange.fail(APIError(500, "Internal error: the store operation failed."))
            }
        }, refuse: {
            exchange.router.logger.error("the store did not answer in time; the request is refused and will not run")
            // From the loop, so that its audit entry is queued, not written before the answer.
            exchange.context.loop.execute {
                exchange.fail(APIError(StoreError.unavailable("the request's deadline passed")))
            }
        })
    }
}
