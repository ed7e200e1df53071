import Foundation
import HTTP1
import Testing

@testable import ConfigServer
@testable import ServerCore

/// The declared routes against `docs/openapi.yaml` (as the server embeds it): every declared
/// method and path is an operation of the document, and every operation is declared.
@Suite struct RouteDocumentationTests {
    /// Paths the document leaves out by design: the web console's files are a site, not an
    /// API (docs/console.md).
    static let undocumented: Set = ["/console", "/console/{file...}"]

    @Test func theDeclarationsAreTheDocumentsOperations() throws {
        let server = try TestServer()
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let methods: Set = ["get", "put", "post", "delete", "patch", "options", "head"]
        let documented = Set(paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
        var declared = Set<String>()
        for declaration in server.instance.application.router.table.routes.map(\.declaration) {
            let path = declaration.path.description
            // A fallback answers custom methods the API does not have: no operation.
            guard !declaration.isFallback, !Self.undocumented.contains(path) else { continue }
            for method in declaration.methods {
                // HEAD is GET without the body (RFC 9110 §9.3.2): the document lists the GET.
                if method == .head, declaration.methods.contains(.get) { continue }
                declared.insert("\(method.rawValue) \(path)")
            }
            // The table answers the CORS preflight on every path browsers call.
            if declaration.isCalledByBrowsers { declared.insert("OPTIONS \(path)") }
        }
        #expect(declared.subtracting(documented).sorted() == [], "declared, not in docs/openapi.yaml")
        #expect(documented.subtracting(declared).sorted() == [], "in docs/openapi.yaml, not declared")
    }

    /// A refusal for a missing role is kept in the audit log (docs/access.md): every route that
    /// checks a role declares what it is kept under.
    @Test func everyRouteThatChecksARoleIsAudited() throws {
        let server = try TestServer()
        let unaudited = server.instance.application.router.table.routes.map(\.declaration).filter { declaration in
            if case .role = declaration.access { return declaration.audit == nil }
            return false
        }
        #expect(unaudited.map { "\($0.methods) \($0.path.description)" } == [])
    }
}
