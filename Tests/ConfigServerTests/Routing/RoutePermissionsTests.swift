@testable import ConfigServer
@testable import ServerCore
import ConfigCore
import ConfigStore
import HTTP1
import Testing

/// The role table by value: what each call needs (docs/access.md), as the route it reaches
/// declares it, looked up from its method and path as a request would be. `RoleTests` checks the
/// same calls end to end with a token of each role.
@Suite struct RoutePermissionsTests {
    /// What a caller needs.
    enum Needs: Sendable, Equatable, CustomStringConvertible {
        /// No admin credentials (the client API checks its client key itself).
        case none
        /// Any valid admin credentials, whatever roles they hold.
        case credentials
        case role(Role)

        var description: String {
            switch self {
            case .none: "none"
            case .credentials: "credentials"
            case .role(let role): "'\(role)'"
            }
        }
    }

    struct Call: Sendable, CustomStringConvertible {
        let method: HTTPMethod
        let path: String
        var validateOnly = false
        let needs: Needs

        init(method: HTTPMethod, path: String, validateOnly: Bool = false, needs: Role?) {
            self.method = method
            self.path = path
            self.validateOnly = validateOnly
            self.needs = needs.map(Needs.role) ?? .none
        }

        init(method: HTTPMethod, path: String, needs: Needs) {
            (self.method, self.path, self.needs) = (method, path, needs)
        }

        var description: String { "\(method) \(path)\(validateOnly ? " (validateOnly)" : "") needs \(needs)" }
    }

    let server: TestServer
    let table: RouteTable

    init() throws {
        server = try TestServer()
        table = server.instance.application.router.table
    }

    static let template = "/v1/projects/demo/namespaces/firebase/remoteConfig"
    static let changes = "/v1/projects/demo/namespaces/firebase/changeRequests"
    static let calls: [Call] = [
        // No admin credentials: health, documents, the console, the client API, sign-in.
        Call(method: .get, path: "/healthz", needs: nil),
        Call(method: .get, path: "/readyz", needs: nil),
        Call(method: .get, path: "/openapi.json", needs: nil),
        Call(method: .get, path: "/console/", needs: nil),
        Call(method: .post, path: "/v1/projects/demo/namespaces/firebase:fetch", needs: nil),
        Call(method: .post, path: "/v1/projects/demo/namespaces/firebase:streamFetchInvalidations", needs: nil),
        Call(method: .post, path: "/ofrep/v1/evaluate/flags", needs: nil),
        Call(method: .get, path: "/auth/oidc/login", needs: nil),
        Call(method: .post, path: "/auth/signOut", needs: nil),
        // The server as a whole.
        Call(method: .get, path: "/metrics", needs: .owner),
        Call(method: .get, path: "/v1/projects", needs: .viewer),
        Call(method: .post, path: "/v1/projects", needs: .owner),
        Call(method: .get, path: "/v1/me", needs: .credentials),
        Call(method: .get, path: "/v1/sessions", needs: .viewer),
        Call(method: .delete, path: "/v1/sessions/s1", needs: .viewer),
        Call(method: .get, path: "/v1/principals", needs: .admin),
        Call(method: .post, path: "/v1/tokens", needs: .admin),
        Call(method: .delete, path: "/v1/tokens/t1", needs: .admin),
        Call(method: .get, path: "/v1/auditLog", needs: .admin),
        // A project's keys, members and webhooks.
        Call(method: .get, path: "/v1/projects/demo/apiKeys", needs: .admin),
        Call(method: .delete, path: "/v1/projects/demo/apiKeys/k1", needs: .admin),
        Call(method: .put, path: "/v1/projects/demo/members/user:a@example.com", needs: .admin),
        Call(method: .get, path: "/v1/projects/demo/webhooks", needs: .admin),
        Call(method: .post, path: "/v1/projects/demo/webhooks/wh_1:rotateSecret", needs: .admin),
        Call(method: .get, path: "/v1/projects/demo/webhooks/wh_1/deliveries", needs: .admin),
        Call(method: .post, path: "/v1/projects/demo/webhooks/wh_1/deliveries/7:redeliver", needs: .admin),
        // Templates.
        Call(method: .get, path: template, needs: .viewer),
        Call(method: .put, path: template, validateOnly: true, needs: .editor),
        Call(method: .put, path: template, needs: .publisher),
        Call(method: .get, path: template + ":listVersions", needs: .viewer),
        Call(method: .get, path: template + ":diff", needs: .viewer),
        Call(method: .post, path: template + ":evaluate", needs: .viewer),
        Call(method: .get, path: template + ":adoption", needs: .viewer),
        Call(method: .get, path: template + ":downloadDefaults", needs: .viewer),
        Call(method: .post, path: template + ":rollback", needs: .publisher),
        Call(method: .get, path: template + ":canary", needs: .viewer),
        Call(method: .post, path: template + ":canary", needs: .publisher),
        Call(method: .post, path: template + ":promote", needs: .publisher),
        Call(method: .post, path: template + ":abort", needs: .publisher),
        Call(method: .get, path: "/v1/projects/demo/namespaces/firebase-server/serverRemoteConfig", needs: .viewer),
        // Change control.
        Call(method: .get, path: "/v1/projects/demo/namespaces/firebase/changePolicy", needs: .viewer),
        Call(method: .put, path: "/v1/projects/demo/namespaces/firebase/changePolicy", needs: .admin),
        Call(method: .get, path: changes, needs: .viewer),
        Call(method: .post, path: changes, needs: .editor),
        Call(method: .get, path: changes + "/3", needs: .viewer),
        Call(method: .patch, path: changes + "/3", needs: .editor),
        Call(method: .post, path: changes + "/3:approve", needs: .publisher),
        Call(method: .post, path: changes + "/3:reject", needs: .publisher),
        Call(method: .post, path: changes + "/3:schedule", needs: .publisher),
        Call(method: .post, path: changes + "/3:apply", needs: .publisher),
        Call(method: .post, path: changes + "/3:cancel", needs: .editor),
    ]

    @Test(arguments: calls)
    func eachCallNeedsItsRole(_ call: Call) throws {
        let (route, _) = table.route(for: call.path, method: call.method)
        try #require(route.declaration.methods.contains(call.method), "\(call.method) \(call.path) is a declared route")
        let uri = RequestURI(target: call.path + (call.validateOnly ? "?validateOnly=true" : ""))
        let project = StoredProject(id: "demo", number: "424242")
        let needs: Needs =
            switch route.declaration.access {
            case .open, .clientKey, .keyNamingProject: .none
            case .signedIn: .credentials
            case .role(let asked): .role(route.neededRole(asked, for: uri, RouteArguments(project: project, kind: .client)))
            }
        #expect(needs == call.needs, "\(call)")
    }

    /// Each role holds the rights of those below it.
    @Test func rolesAreOrdered() {
        #expect(Role.allCases == [.viewer, .editor, .publisher, .admin, .owner])
        #expect(Role.allCases.sorted() == Role.allCases)
        #expect(Role.projectRoles == [.viewer, .editor, .publisher, .admin])
        #expect(Role.projectRole(named: "owner") == nil && Role.projectRole(named: "publisher") == .publisher)
    }
}
