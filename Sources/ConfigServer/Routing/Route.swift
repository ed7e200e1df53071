import HTTP1

/// The custom methods of `remoteConfig` (`…/remoteConfig:listVersions`).
enum TemplateMethod: String {
    case listVersions, rollback, diff, evaluate, adoption, downloadDefaults, canary, promote, abort
}

/// The steps of signing in to the console (docs/access.md, "Sign-in").
enum SignInStep: String {
    /// `GET /auth/oidc/login`: off to the identity provider.
    case login
    /// `GET /auth/oidc/callback`: back from it with a code.
    case callback
    /// `GET /auth/session`: whether sign-in is offered, and who is signed in.
    case session
    /// `POST /auth/signOut`
    case signOut
}

/// What a request path names. `{project}` is a project id or number, `{ns}` a namespace.
enum Route: Equatable {
    case health
    case ready
    case metrics
    case openAPI
    /// `/v1/projects`
    case projects
    /// `/v1/projects/{project}/apiKeys[/{id}]`
    case apiKeys(project: String, id: String?)
    /// `/v1/principals`: people and service accounts.
    case principals
    /// `/v1/auditLog`
    case audit
    /// `/v1/me`: who the credentials are, and their roles.
    case me
    /// `/v1/tokens[/{id}]`
    case tokens(id: String?)
    /// `/v1/sessions[/{id}]`: console sessions started through the identity provider.
    case sessions(id: String?)
    /// `/v1/projects/{project}/members[/{principal}]`
    case members(project: String, principal: String?)
    /// `/v1/projects/{project}/webhooks[/{id}[:method]]`
    case webhooks(project: String, id: String?, method: String?)
    /// `/v1/projects/{project}/webhooks/{id}/deliveries[/{delivery}[:method]]`
    case webhookDeliveries(project: String, id: String, delivery: String?, method: String?)
    /// `/v1/projects/{project}[/namespaces/{ns}]/remoteConfig[:method]`
    case template(project: String, namespace: String, method: String?)
    /// `/v1/projects/{project}/namespaces/firebase-server/serverRemoteConfig`
    case serverTemplate(project: String)
    /// `/v1/projects/{project}/namespaces/{ns}:fetch`
    case fetch(project: String, namespace: String)
    /// `/v1/projects/{project}/namespaces/{ns}:streamFetchInvalidations`
    case stream(project: String, namespace: String)
    /// `/v1/projects/{project}/namespaces/{ns}/changePolicy`
    case changePolicy(project: String, namespace: String)
    /// `/v1/projects/{project}/namespaces/{ns}/changeRequests[/{id}[:step]]`
    case changeRequests(project: String, namespace: String, id: String?, step: String?)
    /// `/auth/…`: signing in to the console with the identity provider.
    case signIn(SignInStep)
    /// `/ofrep/v1/evaluate/flags[/{key}]`: OFREP's evaluation of one flag, or (nil) of all.
    case ofrepEvaluation(flag: String?)
    /// `/ofrep/v1/sse`: the event stream OFREP's bulk answer lists.
    case ofrepEventStream
    /// `/console` or `/console/{file}`: the web console's static files; `file` is what follows
    /// `/console/` (empty for the index), `nil` for `/console` itself.
    case console(file: String?)

    /// Matches a percent-decoded path (so `%3A` already reads as `:`).
    init?(path: String) {
        switch path {
        case "/healthz": self = .health; return
        case "/readyz": self = .ready; return
        case "/metrics": self = .metrics; return
        case "/openapi.json": self = .openAPI; return
        case "/v1/projects": self = .projects; return
        case "/v1/principals": self = .principals; return
        case "/v1/auditLog": self = .audit; return
        case "/v1/me": self = .me; return
        case "/v1/tokens": self = .tokens(id: nil); return
        case "/v1/sessions": self = .sessions(id: nil); return
        case "/auth/oidc/login": self = .signIn(.login); return
        case "/auth/oidc/callback": self = .signIn(.callback); return
        case "/auth/session": self = .signIn(.session); return
        case "/auth/signOut": self = .signIn(.signOut); return
        default: break
        }
        // Two plain checks, not a table: this runs for every request, the fetch's included.
        if path.hasPrefix("/v1/tokens/") {
            guard let id = Self.lastSegment(path, after: "/v1/tokens/") else { return nil }
            self = .tokens(id: id)
            return
        }
        if path.hasPrefix("/v1/sessions/") {
            guard let id = Self.lastSegment(path, after: "/v1/sessions/") else { return nil }
            self = .sessions(id: id)
            return
        }
        var path = path
        if let route = path.withUTF8(Self.parseProjectPath) {
            self = route
            return
        }
        // Only after the Firebase routes failed: neither adds work to fetch and stream.
        if path.hasPrefix("/ofrep/") {
            guard let route = Self.ofrep(path) else { return nil }
            self = route
        } else if path == "/console" {
            self = .console(file: nil)
        } else if path.hasPrefix("/console/") {
            self = .console(file: String(path.dropFirst("/console/".count)))
        } else {
            return nil
        }
    }

    /// What follows `prefix` when it is one non-empty segment.
    private static func lastSegment(_ path: String, after prefix: String) -> String? {
        let id = path.dropFirst(prefix.count)
        return id.isEmpty || id.contains("/") ? nil : String(id)
    }

    /// `/v1/projects/{project}/…` over the path's bytes: this runs for every request, so
    /// segments are byte ranges and only the ids become strings.
    private static func parseProjectPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Route? {
        let segments = PathSegments(bytes)
        guard segments.count >= 5, segments.count <= 8, segments.is(0, ""), segments.is(1, "v1"), segments.is(2, "projects")
        else { return nil }
        let project = segments.text(3)
        guard !project.isEmpty else { return nil }
        switch segments.count {
        case 5:
            if segments.is(4, "apiKeys") { return .apiKeys(project: project, id: nil) }
            if segments.is(4, "members") { return .members(project: project, principal: nil) }
            if segments.is(4, "webhooks") { return .webhooks(project: project, id: nil, method: nil) }
            guard let method = templateMethod(segments, 4) else { return nil }
            return .template(project: project, namespace: "firebase", method: method)
        case 6 where segments.is(4, "apiKeys"):
            let id = segments.text(5)
            return id.isEmpty ? nil : .apiKeys(project: project, id: id)
        case 6 where segments.is(4, "members"):
            let principal = segments.text(5)
            return principal.isEmpty ? nil : .members(project: project, principal: principal)
        case 6 where segments.is(4, "webhooks"):
            let (id, method) = segments.splitAtColon(5)
            return id.isEmpty ? nil : .webhooks(project: project, id: id, method: method)
        case 7 where segments.is(4, "webhooks") && segments.is(6, "deliveries"):
            let id = segments.text(5)
            return id.isEmpty ? nil : .webhookDeliveries(project: project, id: id, delivery: nil, method: nil)
        case 8 where segments.is(4, "webhooks") && segments.is(6, "deliveries"):
            let (id, (delivery, method)) = (segments.text(5), segments.splitAtColon(7))
            return id.isEmpty || delivery.isEmpty ? nil : .webhookDeliveries(project: project, id: id, delivery: delivery, method: method)
        case 6 where segments.is(4, "namespaces"):
            let (namespace, method) = segments.splitAtColon(5)
            switch method {
            case "fetch": return .fetch(project: project, namespace: namespace)
            case "streamFetchInvalidations": return .stream(project: project, namespace: namespace)
            default: return nil
            }
        case 7 where segments.is(4, "namespaces") && segments.is(6, "changePolicy"):
            return .changePolicy(project: project, namespace: segments.text(5))
        case 7 where segments.is(4, "namespaces") && segments.is(6, "changeRequests"):
            return .changeRequests(project: project, namespace: segments.text(5), id: nil, step: nil)
        case 8 where segments.is(4, "namespaces") && segments.is(6, "changeRequests"):
            let (id, step) = segments.splitAtColon(7)
            return id.isEmpty ? nil : .changeRequests(project: project, namespace: segments.text(5), id: id, step: step)
        case 7 where segments.is(4, "namespaces"):
            let namespace = segments.text(5)
            if segments.is(6, "serverRemoteConfig") {
                return namespace == "firebase-server" ? .serverTemplate(project: project) : nil
            }
            guard let method = templateMethod(segments, 6) else { return nil }
            return .template(project: project, namespace: namespace, method: method)
        default:
            return nil
        }
    }

    /// The OFREP routes (openapi.yaml of the OpenFeature protocol, and its event stream).
    private static func ofrep(_ path: String) -> Route? {
        switch path {
        case "/ofrep/v1/evaluate/flags": return .ofrepEvaluation(flag: nil)
        case OFREPEndpoint.eventStreamPath: return .ofrepEventStream
        default:
            let prefix = "/ofrep/v1/evaluate/flags/"
            guard path.hasPrefix(prefix) else { return nil }
            let flag = path.dropFirst(prefix.count)
            return flag.isEmpty || flag.contains("/") ? nil : .ofrepEvaluation(flag: String(flag))
        }
    }

    /// `remoteConfig` → `nil` method; `remoteConfig:listVersions` → `"listVersions"`; else nil.
    private static func templateMethod(_ segments: PathSegments, _ index: Int) -> String?? {
        let (resource, method) = segments.splitAtColon(index)
        guard resource == "remoteConfig" else { return nil }
        return .some(method)
    }
}

/// The `/`-separated segments of a path as byte ranges (empty segments kept; the leading `/`
/// makes segment 0 empty). At most 9 are kept, inline: no route has more than 8 (a longer path
/// shows as 9 and matches none), and this runs for every request.
private struct PathSegments {
    let bytes: UnsafeBufferPointer<UInt8>
    private var ranges = InlineArray<9, Range<Int>>(repeating: 0..<0)
    private(set) var count = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "/") {
            append(start..<index)
            start = index + 1
            if count == ranges.count { return }
        }
        append(start..<bytes.count)
    }

    private mutating func append(_ range: Range<Int>) {
        ranges[count] = range
        count += 1
    }

    func `is`(_ index: Int, _ literal: StaticString) -> Bool {
        let segment = UnsafeBufferPointer(rebasing: bytes[ranges[index]])
        return literal.withUTF8Buffer { segment.elementsEqual($0) }
    }

    func text(_ index: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[ranges[index]]), as: UTF8.self)
    }

    /// `name:method` → (`name`, `method`); no colon → (segment, nil).
    func splitAtColon(_ index: Int) -> (String, String?) {
        let range = ranges[index]
        guard let colon = bytes[range].firstIndex(of: UInt8(ascii: ":")) else { return (text(index), nil) }
        return (String(decoding: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<colon]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: bytes[(colon + 1)..<range.upperBound]), as: UTF8.self))
    }
}

extension Route {
    private static let clientMethods = [Array(":fetch".utf8), Array(":streamFetchInvalidations".utf8)]
    private static let ofrepPath = Array(" /ofrep/".utf8)

    /// Whether `start`, the first bytes of a request, is a fetch or a stream of the client API
    /// (its request line names one of their custom methods), or an OFREP evaluation or event
    /// stream (its target starts with `/ofrep/`); false when the line is cut short.
    static func isClientRequest(_ start: UnsafeRawBufferPointer) -> Bool {
        let line = start.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        guard line.count < start.count else { return false }
        let firebase = line.indices.contains { index in
            line[index] == UInt8(ascii: ":") && clientMethods.contains { line[index...].starts(with: $0) }
        }
        guard !firebase, let space = line.firstIndex(of: UInt8(ascii: " ")) else { return firebase }
        return line[space...].starts(with: ofrepPath)
    }
}
