package import EventLoop
package import HTTP1
import Logging

/// Takes each request to the route the table matches, once what the route reads is current,
/// through the checks it declares, to its handler (loop thread). Every answer leaves through
/// `Exchange.respond`, which adds what every answer of the route carries.
package final class Router: Sendable {
    package let table: RouteTable
    private let checks: RequestChecks
    private let readYourWrites: ReadYourWrites
    private let services: ExchangeServices

    package init(table: RouteTable, checks: RequestChecks, readYourWrites: ReadYourWrites, services: ExchangeServices) {
        self.table = table
        self.checks = checks
        self.readYourWrites = readYourWrites
        self.services = services
    }

    package func handle(_ request: HTTPRequest, context: RequestContext, responder: Responder) {
        let uri = request.head.uri
        let (route, parameters) = table.route(for: uri.path, method: request.head.method)
        let exchange = Exchange(request: request, uri: uri, context: context, responder: responder, route: route,
                                parameters: parameters, services: services)
        if let stale = readYourWrites.staleTarget(of: exchange) {
            answerAfterReload(of: stale, exchange)
        } else {
            run(exchange)
        }
    }

    /// Reads `target` again off the loop, then runs the request (see ``ReadYourWrites``).
    private func answerAfterReload(of target: ReloadTarget, _ exchange: Exchange) {
        readYourWrites.answerAfterReload(of: target, exchange) { [self] in run($0) }
    }

    /// Runs a request whose route reads what is current: its checks, then its handler.
    private func run(_ exchange: Exchange) {
        // Looked up after any reload, so that a token made on another worker is known; the
        // client API's exchange is not copied for it.
        guard !exchange.route.declaration.access.needsAdmin else {
            var withCaller = exchange
            withCaller.caller = checks.caller(of: exchange)
            return runChecked(withCaller)
        }
        runChecked(exchange)
    }

    private func runChecked(_ exchange: Exchange) {
        do {
            let arguments = try checks.arguments(for: exchange)
            try checks.checkRules(exchange, arguments)
            try exchange.route.declaration.handler(exchange, arguments)
        } catch let stale as ReloadNeeded {
            answerAfterReload(of: stale.target, exchange)
        } catch let error as APIError {
            exchange.fail(error)
        } catch let error as any AnsweringError {
            exchange.respond(error.response)
        } catch {
            services.logger.error("request failed", metadata: ["path": "\(exchange.uri.path)", "error": "\(error)"])
            exchange.fail(APIError(500, "Internal error."))
        }
    }
}
