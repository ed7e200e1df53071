import HTTP1

/// `GET|HEAD /console/{file}`: the web console's files (`ConsoleFiles`); `/console/` is
/// `index.html` and `/console` redirects there (the page's relative links need the slash).
struct ConsoleEndpoint: Sendable {
    func serve(_ exchange: Exchange, file: String?) {
        let method = exchange.request.head.method
        guard method == .get || method == .head else {
            var error = APIError.methodNotAllowed([.get, .head])
            error.headers = ConsoleFiles.securityHeaders
            error.headers.add(name: "Allow", value: "GET, HEAD")
            return exchange.respond(error.response)
        }
        guard let file else {
            var headers = ConsoleFiles.securityHeaders
            headers.add(name: "Location", value: "/console/")
            return exchange.respond(HTTPResponse(status: 301, headers: headers))
        }
        guard let response = ConsoleFiles.responses[file.isEmpty ? "index.html" : file] else {
            var error = APIError.notFound("No console file '\(file)'.")
            error.headers = ConsoleFiles.securityHeaders
            return exchange.respond(error.response)
        }
        exchange.respond(response)
    }
}
