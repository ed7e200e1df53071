@testable import ConfigServer
import Testing

@Suite struct RouteTests {
    @Test(arguments: [
        ("/healthz", Route.health),
        ("/readyz", .ready),
        ("/metrics", .metrics),
        ("/openapi.json", .openAPI),
        ("/v1/projects", .projects),
        ("/v1/projects/p1/apiKeys", .apiKeys(project: "p1", id: nil)),
        ("/v1/projects/p1/apiKeys/0a1b2c3d4e5f", .apiKeys(project: "p1", id: "0a1b2c3d4e5f")),
        ("/v1/projects/p1/members", .members(project: "p1", principal: nil)),
        ("/v1/projects/p1/members/svc-ci", .members(project: "p1", principal: "svc-ci")),
        ("/v1/principals", .principals),
        ("/v1/tokens", .tokens(id: nil)),
        ("/v1/tokens/abc", .tokens(id: "abc")),
        ("/v1/auditLog", .audit),
        ("/v1/projects/p1/remoteConfig", .template(project: "p1", namespace: "firebase", method: nil)),
        ("/v1/projects/p1/remoteConfig:listVersions", .template(project: "p1", namespace: "firebase", method: "listVersions")),
        ("/v1/projects/p1/remoteConfig:", .template(project: "p1", namespace: "firebase", method: "")),
        ("/v1/projects/123456789012/namespaces/firebase:fetch", .fetch(project: "123456789012", namespace: "firebase")),
        ("/v1/projects/p/namespaces/firebase-server:fetch", .fetch(project: "p", namespace: "firebase-server")),
        ("/v1/projects/p/namespaces/firebase:streamFetchInvalidations", .stream(project: "p", namespace: "firebase")),
        ("/v1/projects/p/namespaces/other:fetch", .fetch(project: "p", namespace: "other")),
        ("/v1/projects/p/namespaces/firebase/remoteConfig", .template(project: "p", namespace: "firebase", method: nil)),
        ("/v1/projects/p/namespaces/firebase-server/remoteConfig:rollback",
         .template(project: "p", namespace: "firebase-server", method: "rollback")),
        ("/v1/projects/p/namespaces/firebase-server/serverRemoteConfig", .serverTemplate(project: "p")),
        ("/v1/projects/ünï/remoteConfig", .template(project: "ünï", namespace: "firebase", method: nil)),
        ("/console", .console(file: nil)),
        ("/console/", .console(file: "")),
        ("/console/app.js", .console(file: "app.js")),
        ("/console/../x", .console(file: "../x")),
    ])
    func knownPathsRoute(_ path: String, _ route: Route) {
        #expect(Route(path: path) == route)
    }

    /// Paths are matched over their bytes when they are ASCII; one that is not is compared as
    /// characters, as it always was: a combining mark after a prefix's `/` joins it into another
    /// character, and so does a prepended mark before a `/`.
    @Test(arguments: [
        ("/v1/sessions/abc", Route.sessions(id: "abc")),
        ("/v1/sessions", .sessions(id: nil)),
        ("/v1/me", .me),
        ("/auth/oidc/login", .signIn(.login)),
        ("/auth/oidc/callback", .signIn(.callback)),
        ("/auth/session", .signIn(.session)),
        ("/auth/signOut", .signIn(.signOut)),
        ("/ofrep/v1/evaluate/flags", .ofrepEvaluation(flag: nil)),
        ("/ofrep/v1/evaluate/flags/my-flag", .ofrepEvaluation(flag: "my-flag")),
        ("/ofrep/v1/evaluate/flags/fl\u{E4}g", .ofrepEvaluation(flag: "fl\u{E4}g")),
        ("/ofrep/v1/sse", .ofrepEventStream),
        ("/console/x\u{301}", .console(file: "x\u{301}")),
        ("/console/\r\nx", .console(file: "\r\nx")),
        ("/console/a/\u{301}b", .console(file: "a/\u{301}b")),
        ("/v1/tokens/\r\n", .tokens(id: "\r\n")),
        ("/v1/tokens/a/\u{301}b", .tokens(id: "a/\u{301}b")),
        ("/v1/tokens/a\u{600}/b", .tokens(id: "a\u{600}/b")),
        ("/ofrep/v1/evaluate/flags/a/\u{301}b", .ofrepEvaluation(flag: "a/\u{301}b")),
        ("/v1/projects/\u{301}p/remoteConfig", .template(project: "\u{301}p", namespace: "firebase", method: nil)),
        ("/v1/projects/p/namespaces/n\u{301}:fetch", .fetch(project: "p", namespace: "n\u{301}")),
    ])
    func pathsMatchAsCharacters(_ path: String, _ route: Route) {
        #expect(Route(path: path) == route)
    }

    @Test(arguments: [
        "/console/\u{301}x", "/console\u{301}", "/v1/tokens/\u{301}", "/v1/sessions/\u{301}", "/v1/tokens/a/b\u{301}",
        "/ofrep/\u{301}", "/ofrep/v1/evaluate/flags/\u{301}x", "/ofrep/v1/evaluate/flags\u{301}", "/ofrep/v1/sse\u{301}",
        "/ofrep/v1/evaluate/flags/", "/ofrep/v1/evaluate/flags/a/b", "/ofrep/v1", "/ofrep/", "/ofrep",
        "/healthz\u{301}", "/v1/me\u{301}", "/v1/projects/p/namespaces/firebase:fetch\u{301}",
        "/v1/projects/p/api\u{212A}eys", "/v1/m\u{E9}", "/\u{301}healthz", "/auth/oidc", "/auth/", "/v1/tokens/",
        "/v1/sessions/", "/v1/sessions/a/b", "/HEALTHZ", "/v1/Me",
    ])
    func pathsThatAreNotRoutesAsCharacters(_ path: String) {
        #expect(Route(path: path) == nil)
    }

    @Test(arguments: [
        "", "/", "/v1", "/v1/projects/", "/v1/projects//remoteConfig", "/v2/projects/p/remoteConfig",
        "/v1/project/p/remoteConfig", "/v1/projects/p", "/v1/projects/p/other", "/v1/projects/p/remoteconfig",
        "/v1/projects/p/namespaces/firebase:get", "/v1/projects/p/namespaces/firebase",
        "/v1/projects/p/spaces/firebase:fetch", "/v1/projects/p/namespaces/firebase/serverRemoteConfig",
        "/v1/projects/p/namespaces/firebase/remoteConfig/extra", "/healthz/", "//v1/projects/p/remoteConfig",
        "/v1/projects/p/remoteConfig/", "/v1/projects/p/apiKeys/", "/v1/tokens/a/b", "/consoles", "/console.js", "/v1/console/",
    ])
    func otherPathsDoNot(_ path: String) {
        #expect(Route(path: path) == nil)
    }

    /// Fetches and streams may wait behind other ready connections; everything else is read
    /// at once, and so is a request whose first line has not all arrived.
    @Test func clientRequestsAreToldApartFromTheirFirstLine() {
        func isClient(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBytes { Route.isClientRequest($0) }
        }
        #expect(isClient("POST /v1/projects/123/namespaces/firebase:fetch HTTP/1.1\r\nHost: x\r\n"))
        #expect(isClient("POST /v1/projects/p/namespaces/firebase:fetch?key=k HTTP/1.1\r\n"))
        #expect(isClient("POST /v1/projects/p/namespaces/firebase:streamFetchInvalidations HTTP/1.1\r\n"))
        #expect(!isClient("PUT /v1/projects/p/remoteConfig HTTP/1.1\r\n"))
        #expect(!isClient("GET /v1/projects/p/remoteConfig:listVersions HTTP/1.1\r\n"))
        #expect(!isClient("GET /healthz HTTP/1.1\r\n"))
        #expect(!isClient("POST /v1/projects/p/namespaces/firebase:fet"), "a cut line is read at once")
        #expect(!isClient("GET /console/ HTTP/1.1\r\nReferer: /x:fetch\r\n"), "only the request line counts")
    }
}
