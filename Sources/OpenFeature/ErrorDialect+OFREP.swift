import HTTP1
import ServerCore

extension ErrorDialect {
    /// OFREP's error shape on its routes, naming the flag of a single evaluation (openapi.yaml
    /// of the protocol); under `/ofrep/` also for what matches no route and what the HTTP
    /// server refuses by itself.
    static let ofrep = ErrorDialect(name: "ofrep", answer: { error, exchange in
        OFREPError(error, key: exchange.pathParameter("key")).response
    }, format: OFREPError.transportFormat)
}
