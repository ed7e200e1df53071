import HTTP1
import Testing

@testable import ConfigServer
@testable import ServerCore

/// The route table of a real worker, as its features declare it: each path reaches its
/// declaration with its parameters, and what no declaration answers gets the table's own route.
@Suite struct RouteTests {
    let server: TestServer
    let table: RouteTable

    init() throws {
        server = try TestServer()
        table = server.instance.application.router.table
    }

    /// The declaration `method` on `path` reaches, and the values of its parameters.
    private func route(_ method: HTTPMethod, _ path: String) -> (pattern: String, parameters: [String]) {
        let (route, parameters) = table.route(for: path, method: method)
        return (route.declaration.path.description, (0..<parameters.count).map { parameters.value(at: $0, in: path) })
    }

    @Test(arguments: [
        (HTTPMethod.get, "/healthz", "/healthz", [String]()),
        (.head, "/readyz", "/readyz", []),
        (.get, "/metrics", "/metrics", []),
        (.get, "/openapi.json", "/openapi.json", []),
        (.post, "/v1/projects", "/v1/projects", []),
        (.get, "/v1/projects/p1/apiKeys", "/v1/projects/{project}/apiKeys", ["p1"]),
        (.delete, "/v1/projects/p1/apiKeys/0a1b2c3d4e5f", "/v1/projects/{project}/apiKeys/{key}", ["p1", "0a1b2c3d4e5f"]),
        (.put, "/v1/projects/p1/members/svc-ci", "/v1/projects/{project}/members/{principal}", ["p1", "svc-ci"]),
        (.delete, "/v1/tokens/abc", "/v1/tokens/{token}", ["abc"]),
        (.delete, "/v1/sessions/abc", "/v1/sessions/{session}", ["abc"]),
        (.get, "/v1/me", "/v1/me", []),
        (.get, "/v1/auditLog", "/v1/auditLog", []),
        (.get, "/v1/projects/p1/remoteConfig", "/v1/projects/{project}/remoteConfig", ["p1"]),
        (.get, "/v1/projects/p1/remoteConfig:listVersions", "/v1/projects/{project}/remoteConfig:listVersions", ["p1"]),
        (.get, "/v1/projects/p1/remoteConfig:", "/v1/projects/{project}/remoteConfig:{method}", ["p1", ""]),
        (.post, "/v1/projects/p1/remoteConfig:bogus", "/v1/projects/{project}/remoteConfig:{method}", ["p1", "bogus"]),
        (.post, "/v1/projects/123456789012/namespaces/firebase:fetch", "/v1/projects/{project}/namespaces/{namespace}:fetch",
         ["123456789012", "firebase"]),
        (.post, "/v1/projects/p/namespaces/other:fetch", "/v1/projects/{project}/namespaces/{namespace}:fetch", ["p", "other"]),
        (.post, "/v1/projects/p/namespaces/firebase:streamFetchInvalidations",
         "/v1/projects/{project}/namespaces/{namespace}:streamFetchInvalidations", ["p", "firebase"]),
        (.put, "/v1/projects/p/namespaces/firebase-server/remoteConfig", "/v1/projects/{project}/namespaces/{namespace}/remoteConfig",
         ["p", "firebase-server"]),
        (.get, "/v1/projects/p/namespaces/firebase-server/serverRemoteConfig",
         "/v1/projects/{project}/namespaces/firebase-server/serverRemoteConfig", ["p"]),
        (.post, "/v1/projects/p/webhooks/wh_1:rotateSecret", "/v1/projects/{project}/webhooks/{webhook}:rotateSecret", ["p", "wh_1"]),
        (.post, "/v1/projects/p/webhooks/wh_1:ping", "/v1/projects/{project}/webhooks/{webhook}:{method}", ["p", "wh_1", "ping"]),
        (.patch, "/v1/projects/p/webhooks/wh_1", "/v1/projects/{project}/webhooks/{webhook}", ["p", "wh_1"]),
        (.post, "/v1/projects/p/webhooks/wh_1/deliveries/7:redeliver",
         "/v1/projects/{project}/webhooks/{webhook}/deliveries/{delivery}:redeliver", ["p", "wh_1", "7"]),
        (.get, "/v1/projects/p/webhooks/wh_1/deliveries/7", "/v1/projects/{project}/webhooks/{webhook}/deliveries/{delivery}",
         ["p", "wh_1", "7"]),
        (.post, "/v1/projects/p/namespaces/firebase/changeRequests/3:approve",
         "/v1/projects/{project}/namespaces/{namespace}/changeRequests/{id}:approve", ["p", "firebase", "3"]),
        (.get, "/v1/projects/p/namespaces/firebase/changeRequests/3:merge",
         "/v1/projects/{project}/namespaces/{namespace}/changeRequests/{id}:{step}", ["p", "firebase", "3", "merge"]),
        (.post, "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", []),
        (.post, "/ofrep/v1/evaluate/flags/my-flag", "/ofrep/v1/evaluate/flags/{key}", ["my-flag"]),
        (.get, "/ofrep/v1/sse", "/ofrep/v1/sse", []),
        (.get, "/auth/oidc/callback", "/auth/oidc/callback", []),
        (.get, "/console", "/console", []),
        (.get, "/console/", "/console/{file...}", [""]),
        (.head, "/console/app.js", "/console/{file...}", ["app.js"]),
        (.get, "/console/../x", "/console/{file...}", ["../x"]),
        // A path's segments are its bytes, whatever they hold.
        (.get, "/v1/projects/ünï/remoteConfig", "/v1/projects/{project}/remoteConfig", ["ünï"]),
        (.get, "/v1/projects/\u{301}p/remoteConfig", "/v1/projects/{project}/remoteConfig", ["\u{301}p"]),
        (.post, "/ofrep/v1/evaluate/flags/fl\u{E4}g", "/ofrep/v1/evaluate/flags/{key}", ["fl\u{E4}g"]),
        (.get, "/console/a/\u{301}b", "/console/{file...}", ["a/\u{301}b"]),
        (.delete, "/v1/tokens/a:b", "/v1/tokens/{token}", ["a:b"]),
    ])
    func pathsReachTheirDeclaration(_ method: HTTPMethod, _ path: String, _ pattern: String, _ parameters: [String]) {
        let found = route(method, path)
        #expect(found.pattern == pattern, "\(method) \(path)")
        #expect(found.parameters == parameters, "\(method) \(path)")
    }

    @Test(arguments: [
        "", "/", "/v1", "/v1/projects/", "/v1/projects//remoteConfig", "/v2/projects/p/remoteConfig",
        "/v1/project/p/remoteConfig", "/v1/projects/p", "/v1/projects/p/other", "/v1/projects/p/remoteconfig",
        "/v1/projects/p/namespaces/firebase:get", "/v1/projects/p/namespaces/firebase",
        "/v1/projects/p/spaces/firebase:fetch", "/v1/projects/p/namespaces/firebase/serverRemoteConfig",
        "/v1/projects/p/namespaces/firebase/remoteConfig/extra", "/healthz/", "//v1/projects/p/remoteConfig",
        "/v1/projects/p/remoteConfig/", "/v1/projects/p/apiKeys/", "/v1/tokens/a/b", "/consoles", "/console.js", "/v1/console/",
        "/ofrep/v1/evaluate/flags/", "/ofrep/v1/evaluate/flags/a/b", "/ofrep/v1", "/ofrep/", "/ofrep", "/HEALTHZ", "/v1/Me",
        "/healthz\u{301}", "/v1/me\u{301}", "/\u{301}healthz", "/console\u{301}", "/v1/projects/p/api\u{212A}eys",
        "/v1/tokens/", "/v1/sessions/", "/v1/sessions/a/b", "/auth/oidc", "/auth/", "/v1/projects/p/namespaces/:fetch",
    ])
    func otherPathsReachNone(_ path: String) {
        let (route, _) = table.route(for: path, method: .get)
        #expect(route.label.name == "unknown", "\(path)")
    }

    /// A path no route has is answered in the dialect of the routes under its first segment.
    @Test func pathsNoRouteHasAreWordedByTheirPrefix() {
        #expect(table.route(for: "/ofrep/v2/x", method: .post).0.declaration.dialect.name == "ofrep")
        #expect(table.route(for: "/v1/nothing", method: .get).0.declaration.dialect.name == "google")
        #expect(table.errorFormats.map(\.prefix) == ["/ofrep/"])
    }

    /// A method a path's routes do not answer gets the table's 405, under the path's label;
    /// `OPTIONS` on a path browsers call is the preflight.
    @Test func otherMethodsGet405OrThePreflight() throws {
        let (put, _) = table.route(for: "/v1/projects/demo/remoteConfig:listVersions", method: .put)
        #expect(put.label.name == "remoteConfig:listVersions" && put.declaration.methods.isEmpty && !put.declaration.isFallback)
        let (options, _) = table.route(for: "/v1/projects/demo/namespaces/firebase:fetch", method: .options)
        #expect(options.label.name == "fetch" && options.declaration.isCalledByBrowsers)
        let response = try server.request("OPTIONS", "/ofrep/v1/sse")
        #expect(response.status == 204 && response.header("Access-Control-Allow-Origin") == "*")
        let denied = try server.request("GET", "/v1/projects/demo/namespaces/firebase:fetch")
        #expect(denied.status == 405 && denied.header("Allow") == "POST" && denied.header("Access-Control-Allow-Origin") == "*")
    }

    /// The preflight and the 405 check and read nothing: not even the project or namespace the
    /// path names (a browser's preflight carries no credentials, and its answer is no stream's).
    @Test func thePreflightAndThe405NameNoProjectOrNamespace() throws {
        let stream = "/v1/projects/nowhere/namespaces/AAA:streamFetchInvalidations"
        let preflight = try server.request("OPTIONS", stream)
        #expect(preflight.status == 204 && preflight.header("Access-Control-Allow-Origin") == "*", "\(preflight.status)")
        let denied = try server.request("GET", stream)
        #expect(denied.status == 405 && denied.header("Allow") == "POST", "\(denied.status)")
    }

    /// Each route's label reads as the name metrics always gave it; labels are numbered once.
    @Test(arguments: [
        ("GET /healthz", "healthz"), ("GET /readyz", "readyz"), ("GET /openapi.json", "openapi"), ("POST /v1/projects", "projects"),
        ("DELETE /v1/projects/{project}/apiKeys/{key}", "apiKeys"), ("GET /v1/auditLog", "auditLog"), ("GET /v1/me", "me"),
        ("DELETE /v1/tokens/{token}", "tokens"), ("DELETE /v1/sessions/{session}", "sessions"),
        ("GET /v1/projects/{project}/members", "members"), ("POST /v1/projects/{project}/webhooks/{webhook}:test", "webhooks"),
        ("GET /v1/projects/{project}/webhooks/{webhook}/deliveries", "webhookDeliveries"),
        ("PUT /v1/projects/{project}/remoteConfig", "remoteConfig"),
        ("GET /v1/projects/{project}/namespaces/{namespace}/remoteConfig:listVersions", "remoteConfig:listVersions"),
        ("POST /v1/projects/{project}/remoteConfig:promote", "remoteConfig:promote"),
        ("GET /v1/projects/{project}/remoteConfig:downloadDefaults", "remoteConfig:downloadDefaults"),
        ("GET /v1/projects/{project}/namespaces/firebase-server/serverRemoteConfig", "serverRemoteConfig"),
        ("POST /v1/projects/{project}/namespaces/{namespace}:fetch", "fetch"),
        ("POST /v1/projects/{project}/namespaces/{namespace}:streamFetchInvalidations", "streamFetchInvalidations"),
        ("POST /ofrep/v1/evaluate/flags", "ofrep:evaluateFlags"), ("POST /ofrep/v1/evaluate/flags/{key}", "ofrep:evaluateFlag"),
        ("GET /ofrep/v1/sse", "ofrep:eventStream"), ("GET /console", "console"), ("GET /auth/oidc/login", "auth:login"),
        ("POST /auth/signOut", "auth:signOut"), ("PUT /v1/projects/{project}/namespaces/{namespace}/changePolicy", "changePolicy"),
        ("GET /v1/projects/{project}/namespaces/{namespace}/changeRequests", "changeRequests"),
        ("PATCH /v1/projects/{project}/namespaces/{namespace}/changeRequests/{id}", "changeRequest"),
        ("POST /v1/projects/{project}/namespaces/{namespace}/changeRequests/{id}:schedule", "changeRequest:schedule"),
    ])
    func operationsAreLabelledByName(_ operation: String, _ name: String) throws {
        let route = try #require(table.routes.first { Self.operations(of: $0.declaration).contains(operation) })
        #expect(route.label.name == name)
        let sameName = table.routes.filter { $0.label.name == route.label.name }
        #expect(sameName.allSatisfy { $0.label == route.label }, "one number per name")
    }

    /// Unknown custom methods and steps are counted under `…:unknown`, and a path no route has
    /// under `unknown`: clients cannot grow the set of labels.
    @Test func unknownCallsShareALabel() {
        #expect(table.route(for: "/v1/projects/p/remoteConfig:bogus", method: .get).0.label.name == "remoteConfig:unknown")
        #expect(table.route(for: "/v1/projects/p/namespaces/n/changeRequests/1:merge", method: .post).0.label.name
            == "changeRequest:unknown")
        #expect(table.route(for: "/nothing/here", method: .get).0.label.name == "unknown")
    }

    /// Fetches, streams and OFREP's evaluations may wait behind other ready connections;
    /// everything else is read at once, and so is a request whose first line has not all arrived.
    @Test func clientRequestsAreToldApartFromTheirFirstLine() {
        func isClient(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBytes { table.clientRequests.matches($0) }
        }
        #expect(isClient("POST /v1/projects/123/namespaces/firebase:fetch HTTP/1.1\r\nHost: x\r\n"))
        #expect(isClient("POST /v1/projects/p/namespaces/firebase:fetch?key=k HTTP/1.1\r\n"))
        #expect(isClient("POST /v1/projects/p/namespaces/firebase:streamFetchInvalidations HTTP/1.1\r\n"))
        #expect(isClient("POST /ofrep/v1/evaluate/flags HTTP/1.1\r\n"))
        #expect(isClient("POST /ofrep/v1/evaluate/flags/f HTTP/1.1\r\n"))
        #expect(isClient("GET /ofrep/v1/sse?key=k HTTP/1.1\r\n"))
        #expect(!isClient("PUT /v1/projects/p/remoteConfig HTTP/1.1\r\n"))
        #expect(!isClient("GET /v1/projects/p/remoteConfig:listVersions HTTP/1.1\r\n"))
        #expect(!isClient("GET /healthz HTTP/1.1\r\n"))
        #expect(!isClient("POST /v1/projects/p/namespaces/firebase:fet"), "a cut line is read at once")
        #expect(!isClient("GET /console/ HTTP/1.1\r\nReferer: /x:fetch\r\n"), "only the request line counts")
    }

    /// `METHOD /path` for each method a declaration answers.
    static func operations(of declaration: RouteDeclaration) -> [String] {
        declaration.methods.map { "\($0.rawValue) \(declaration.path)" }
    }
}
