@testable import ConfigServer
import Foundation
import Testing

/// The web console's route: its files, their types and security headers, and nothing else.
@Suite(.timeLimit(.minutes(1))) final class ConsoleTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    /// The console folder of this checkout.
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("console")

    static let names = ConsoleFiles.files.map(\.name)

    private func expectSecurityHeaders(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        let policy = response.header("Content-Security-Policy") ?? ""
        #expect(policy == ConsoleFiles.contentSecurityPolicy, sourceLocation: sourceLocation)
        #expect(response.header("X-Content-Type-Options") == "nosniff", sourceLocation: sourceLocation)
        #expect(response.header("Referrer-Policy") == "no-referrer", sourceLocation: sourceLocation)
    }

    @Test func thePolicyIsStrict() {
        let directives = ConsoleFiles.contentSecurityPolicy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(directives.contains("default-src 'none'"))
        #expect(directives.contains("script-src 'self'"))
        #expect(directives.contains("style-src 'self'"))
        #expect(directives.contains("frame-ancestors 'none'"))
        #expect(directives.contains("require-trusted-types-for 'script'"))
        #expect(!ConsoleFiles.contentSecurityPolicy.contains("unsafe"))
    }

    @Test(arguments: names) func servesEachFile(_ name: String) throws {
        let response = try server.request("GET", "/console/\(name)")
        #expect(response.status == 200)
        let expected = try #require(ConsoleFiles.files.first { $0.name == name }).text
        #expect(response.text == expected)
        let type = response.header("Content-Type") ?? ""
        switch URL(fileURLWithPath: name).pathExtension {
        case "html": #expect(type == "text/html; charset=utf-8")
        case "css": #expect(type == "text/css; charset=utf-8")
        case "js": #expect(type == "text/javascript; charset=utf-8")
        case "svg": #expect(type == "image/svg+xml")
        default: Issue.record("unexpected file \(name)")
        }
        expectSecurityHeaders(response)
    }

    @Test func theFolderAddressIsTheIndex() throws {
        let index = try server.request("GET", "/console/")
        #expect(index.status == 200)
        #expect(index.header("Content-Type") == "text/html; charset=utf-8")
        #expect(index.text.contains("<script type=\"module\" src=\"app.js\"></script>"))
        expectSecurityHeaders(index)
        let bare = try server.request("GET", "/console")
        #expect(bare.status == 301)
        #expect(bare.header("Location") == "/console/")
        expectSecurityHeaders(bare)
    }

    @Test(arguments: [
        "/console/nope.js", "/console/../openapi.json", "/console/%2e%2e/openapi.json", "/console/..%2fopenapi.json",
        "/console/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "/console//etc/passwd", "/console/./index.html", "/console/sub/app.js",
        "/console/index.html/", "/console/app.js%00.html", "/console/APP.JS", "/console/.", "/console/..",
    ])
    func otherPathsAreNotFound(_ target: String) throws {
        let response = try server.request("GET", target)
        #expect(response.status == 404)
        #expect(response.errorStatus == "NOT_FOUND")
        expectSecurityHeaders(response)
    }

    @Test func headAnswersWithoutABody() throws {
        let get = try server.request("GET", "/console/app.js")
        let client = try server.client()
        try client.send(TestClient.format("HEAD", "/console/app.js"))
        let head = try client.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "\(get.body.count)")
        expectSecurityHeaders(head)
        // The next answer on the connection starts right after the head: no body was sent.
        try client.send(TestClient.format("GET", "/healthz"))
        #expect(try client.readResponse().status == 200)
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) func onlyGetAndHead(_ method: String) throws {
        let response = try server.request(method, "/console/index.html")
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
        expectSecurityHeaders(response)
    }

    @Test func theEmbeddedCopyEqualsTheFolder() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(Self.names == onDisk, "run scripts/console-embed")
        for (name, text) in ConsoleFiles.files {
            let file = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            #expect(text == file, "console/\(name) differs from its embedded copy: run scripts/console-embed")
        }
    }

    /// Every file a page or module loads is one the route serves, and nothing is inline.
    @Test func everyReferenceNamesAServedFile() throws {
        let pattern = try Regex(##"(?:src|href)="([^"#:]+)"|from "\./([^"]+)""##)
        for (name, text) in ConsoleFiles.files where name.hasSuffix(".html") || name.hasSuffix(".js") {
            for match in text.matches(of: pattern) {
                let reference = String((match.output[1].substring ?? match.output[2].substring) ?? "")
                #expect(ConsoleFiles.responses[reference] != nil, "\(name) refers to \(reference)")
            }
            #expect(!text.contains("innerHTML") && !text.contains("eval("), "\(name)")
            if name.hasSuffix(".html") {
                #expect(!text.contains(" style=") && !text.contains("<style"), "\(name) has inline style")
                #expect(!text.contains(try Regex(#"\son[a-z]+\s*="#)), "\(name) has inline event handlers")
                #expect(!text.contains("<script>"), "\(name) has an inline script")
            }
        }
    }
}
