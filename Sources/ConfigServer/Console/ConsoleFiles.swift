import HTTP1

/// The web console's static files, compiled into the binary (`ConsoleFiles+Embedded.swift`,
/// made from the `console/` folder by `scripts/console-embed`), so every binary and image
/// serves them without a file to install.
enum ConsoleFiles {
    /// The policy every console answer carries: scripts, styles and images only from the
    /// server itself, no inline script or style, no `eval`, no plugins, no framing, and
    /// Trusted Types with no policy, so an `innerHTML` assignment throws instead of parsing.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
        "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
        "require-trusted-types-for 'script'", "trusted-types 'none'",
    ].joined(separator: "; ")

    /// The security headers of every console answer, errors included.
    static var securityHeaders: HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Security-Policy", value: contentSecurityPolicy)
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "X-Frame-Options", value: "DENY")
        headers.add(name: "Cross-Origin-Opener-Policy", value: "same-origin")
        headers.add(name: "Cross-Origin-Resource-Policy", value: "same-origin")
        // Revalidate on every load, so a new binary's console is used at once.
        headers.add(name: "Cache-Control", value: "no-cache")
        return headers
    }

    /// `Content-Type` by file extension; a file of another kind is not served.
    static func contentType(of name: String) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...] {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "svg": return "image/svg+xml"
        default: return nil
        }
    }

    /// Each file's whole answer, built once. Looked up by exact name, so a path with `..`,
    /// `/` or `%2F` names no file: nothing outside this table can be served.
    static let responses: [String: HTTPResponse] = Dictionary(uniqueKeysWithValues: files.compactMap { name, text in
        guard let type = contentType(of: name) else { return nil }
        var headers = securityHeaders
        headers.add(name: "Content-Type", value: type)
        return (name, HTTPResponse(status: 200, headers: headers, body: Array(text.utf8)))
    })
}
