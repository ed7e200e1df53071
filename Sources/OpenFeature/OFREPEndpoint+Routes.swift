import HTTP1
package import ServerCore

extension OFREPEndpoint {
    /// OFREP's evaluations and the bulk answer's event stream, called by web providers
    /// cross-origin; the client key names the project, and errors are the protocol's.
    package var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.post, path: "/ofrep/v1/evaluate/flags/{key}", label: "ofrep:evaluateFlag", access: .keyNamingProject,
                             reads: .dataPlane) { exchange, _ in try evaluate(exchange, flag: exchange.parameter("key")) },
            RouteDeclaration(.post, path: "/ofrep/v1/evaluate/flags", label: "ofrep:evaluateFlags", access: .keyNamingProject,
                             reads: .dataPlane) { exchange, _ in try evaluate(exchange, flag: nil) },
            RouteDeclaration(.get, path: Self.eventStreamPath, label: "ofrep:eventStream", access: .keyNamingProject,
                             reads: .dataPlane) { exchange, _ in try openEventStream(exchange) },
        ].map { $0.forClients(dialect: .ofrep) }
    }
}
