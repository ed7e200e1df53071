import CLinuxIO
import ConfigCore
package import ConfigStore
package import EventLoop
package import HTTP1
import Dispatch
import Logging

/// One request being answered: what came in, the route it took, who its credentials say it
/// is, and how to reply.
package struct Exchange: Sendable {
    package let request: HTTPRequest
    package let uri: RequestURI
    package let context: RequestContext
    let responder: Responder
    /// The declared route its path and method matched (or the table's answer for none).
    let route: Route
    /// Where its path gave the route's parameters their values (read with `parameter(_:)`).
    let parameters: RouteParameters
    /// What it answers through: metrics, audit, the store queue, the log.
    let services: ExchangeServices
    /// Who its admin credentials say it is, looked up once for a route that needs them
    /// (`anonymous` on the others).
    var caller = Caller.anonymous
    /// Set when the store could not be read to bring what the request reads up to date: it
    /// is then answered from memory (a config server keeps serving while its store is unwell).
    package var storeUnreadable = false
    /// Set once the request waited for its one read of the template it reads (docs/consistency.md):
    /// it is then answered from memory, even if a change was acknowledged since it arrived.
    package var reloaded = false

    /// When the request is answered at the latest, whatever it waits for: the store queue's
    /// time-out (`store.requestTimeoutSeconds`) from its arrival.
    var deadline: ContinuousClock.Instant {
        .now + services.storeQueue.timeout - .nanoseconds(rcs_monotonic_nanos() - context.receivedNanos)
    }

    /// The one way out for every answer of every endpoint, now or later: the fields browsers
    /// need on the routes they call (``CORS``), or else the audit entry; then the route's
    /// metrics, counted with the time since the request arrived.
    package func respond(_ response: consuming HTTPResponse) {
        // The routes browsers call (the client API) are never audited: no call on its hot path.
        if route.declaration.isCalledByBrowsers { CORS.addFields(to: &response.headers) } else { services.audit.record(self, response) }
        let seconds = Double(rcs_monotonic_nanos() - context.receivedNanos) / 1e9
        services.metrics.recordRequest(route: route.label, status: response.status, seconds: seconds)
        responder.respond(response)
    }

    /// Answers `error` in the route's dialect (Google's error body unless it declares another).
    func fail(_ error: APIError) {
        respond(route.declaration.dialect.answer(error, self))
    }

    /// Starts the stream's chunked answer (loop thread), wrapped as ``respond(_:)`` wraps the
    /// others; nil when the client is gone. Its time is that of the whole stream: not recorded.
    func startStream(headers: HTTPHeaders, onClose: @escaping () -> Void) -> ResponseStream? {
        var headers = headers
        if route.declaration.isCalledByBrowsers { CORS.addFields(to: &headers) }
        services.metrics.recordRequest(route: route.label, status: 200)
        return responder.startStream(headers: headers, onClose: onClose)
    }

    /// What a version this request makes records as its `updateOrigin`: `CONSOLE` when the
    /// web console sent it (it says so in `X-RCS-Origin`), else `REST_API`.
    package var updateOrigin: String {
        (request.head.headers["X-RCS-Origin"]?.uppercased() == "CONSOLE" ? UpdateOrigin.console : UpdateOrigin.restAPI).rawValue
    }

    /// Runs `work` on the store queue and answers with what it returns or throws.
    /// - Parameters:
    ///   - project, expectedVersion: what the request named, for the wording of a `StoreError`.
    package func answerFromStore(
        project: StoredProject? = nil, expectedVersion: Int64? = nil,
        _ work: @escaping @Sendable () throws -> HTTPResponse
    ) {
        let method = request.head.method
        guard method == .get || method == .head || !services.board.isBehind else { return fail(.nodeBehind) }
        answerOnStoreQueue(project: project, expectedVersion: expectedVersion) { (try work(), nil) }
    }

    /// Runs a commit on the store queue, answers with what it returns or throws, then sends the
    /// commit's announcement: the fan-out to held streams starts after the answer is queued.
    ///
    /// The request is answered within `store.requestTimeoutSeconds` of its arrival: if the work
    /// has not answered nor begun to commit by then, it is answered 503 and the work dropped,
    /// never run or committed later (the client was told it failed, so it must not happen
    /// behind its back).
    package func answerWithCommit(
        project: StoredProject? = nil, expectedVersion: Int64? = nil,
        _ work: @escaping @Sendable () throws -> (HTTPResponse, TemplateUpdates.Announcement?)
    ) {
        // A node behind its store would acknowledge what its other workers cannot serve yet.
        guard !services.board.isBehind else { return fail(.nodeBehind) }
        answerOnStoreQueue(project: project, expectedVersion: expectedVersion, work)
    }

    private func answerOnStoreQueue(
        project: StoredProject?, expectedVersion: Int64?,
        _ work: @escaping @Sendable () throws -> (HTTPResponse, TemplateUpdates.Announcement?)
    ) {
        let exchange = self
        services.storeQueue.async(by: deadline, { claim in
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
                    exchange.services.logger.error("the store is unavailable", metadata: ["error": "\(error)"])
                default:
                    break
                }
                exchange.fail(APIError(error, project: project, expectedVersion: expectedVersion))
            } catch {
                guard claim.takeForWork() else { return }
                exchange.services.logger.error("store operation failed", metadata: ["error": "\(error)"])
                exchange.fail(APIError(500, "Internal error: the store operation failed."))
            }
        }, refuse: {
            exchange.services.logger.error("the store did not answer in time; the request is refused and will not run")
            // From the loop, so that its audit entry is queued, not written before the answer.
            exchange.context.loop.execute {
                exchange.fail(APIError(StoreError.unavailable("the request's deadline passed")))
            }
        })
    }
}
