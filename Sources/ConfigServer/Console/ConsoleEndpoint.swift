import HTTP1
import ServerCore

/// The web console's files (`ConsoleFiles`).
struct ConsoleEndpoint: Sendable {
    /// Serves `file`, what follows `/console/` (nil for `/console` itself).
    func serve(_ exchange: Exchange, file: String?) throws {
        guard let file else {
            var headers = ConsoleFiles.securityHeaders
            headers.add(name: "Location", value: "/console/")
            return exchange.respond(HTTPResponse(status: 301, headers: headers))
        }
        guard let response = ConsoleFiles.responses[file.isEmpty ? "index.html" : file] else {
            throw APIError.notFound("No console file '\(file)'.")
        }
        exchange.respond(response)
    }
}
