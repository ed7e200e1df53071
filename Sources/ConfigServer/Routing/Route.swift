import Glibc
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
        var text = path
        guard let route = text.withUTF8({ Self.match(RoutePath(text: path, bytes: $0)) }) else { return nil }
        self = route
    }

    /// Over the path's bytes (see ``RoutePath``): this runs for every request, the fetch's included.
    private static func match(_ path: RoutePath) -> Route? {
        if path.is("/healthz") { return .health }
        if path.is("/readyz") { return .ready }
        if path.is("/metrics") { return .metrics }
        if path.is("/openapi.json") { return .openAPI }
        if path.is("/v1/projects") { return .projects }
        if path.is("/v1/principals") { return .principals }
        if path.is("/v1/auditLog") { return .audit }
        if path.is("/v1/me") { return .me }
        if path.is("/v1/tokens") { return .tokens(id: nil) }
        if path.is("/v1/sessions") { return .sessions(id: nil) }
        if path.is("/auth/oidc/login") { return .signIn(.login) }
        if path.is("/auth/oidc/callback") { return .signIn(.callback) }
        if path.is("/auth/session") { return .signIn(.session) }
        if path.is("/auth/signOut") { return .signIn(.signOut) }
        if path.hasPrefix("/v1/tokens/") { return path.lastSegment(after: "/v1/tokens/").map { .tokens(id: $0) } }
        if path.hasPrefix("/v1/sessions/") { return path.lastSegment(after: "/v1/sessions/").map { .sessions(id: $0) } }
        // Its segments are bytes whatever the path holds; a path that does not start so has too few.
        if path.bytesStart(with: "/v1/projects/"), let route = parseProjectPath(path.bytes) { return route }
        // Only after the Firebase routes failed: neither adds work to fetch and stream.
        if path.hasPrefix("/ofrep/") { return ofrep(path) }
        if path.is("/console") { return .console(file: nil) }
        if path.hasPrefix("/console/") { return .console(file: String(path.text.dropFirst("/console/".count))) }
        return nil
    }

    /// `/v1/projects/{project}/…` over the path's bytes: this runs for every request, so
    /// segments are byte ranges and only the ids become strings.
    private static func parseProjectPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Route? {
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: PathSegments.capacity) { ranges in
            parseProjectPath(PathSegments(bytes, ranges: ranges))
        }
    }

    private static func parseProjectPath(_ segments: PathSegments) -> Route? {
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
    private static func ofrep(_ path: RoutePath) -> Route? {
        if path.is("/ofrep/v1/evaluate/flags") { return .ofrepEvaluation(flag: nil) }
        if path.equals(OFREPEndpoint.eventStreamPath) { return .ofrepEventStream }
        let prefix: StaticString = "/ofrep/v1/evaluate/flags/"
        guard path.hasPrefix(prefix) else { return nil }
        let flag = path.text.dropFirst(prefix.utf8CodeUnitCount)
        return flag.isEmpty || flag.contains("/") ? nil : .ofrepEvaluation(flag: String(flag))
    }

    /// `remoteConfig` → `nil` method; `remoteConfig:listVersions` → `"listVersions"`; else nil.
    private static func templateMethod(_ segments: PathSegments, _ index: Int) -> String?? {
        let (resource, method) = segments.splitAtColon(index)
        guard resource == "remoteConfig" else { return nil }
        return .some(method)
    }
}

/// Whether two buffers of the same length hold the same bytes.
private func equalBytes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
    for index in lhs.indices where lhs[index] != rhs[index] { return false }
    return true
}

/// A path as ``Route`` matches it: by its bytes when it is ASCII (nearly every path), where
/// bytes and characters are one; as a string otherwise, where Swift compares characters (so
/// that, say, a combining mark after a prefix's last `/` makes another character, as it did
/// when every path was matched as a string).
private struct RoutePath {
    let text: String
    let bytes: UnsafeBufferPointer<UInt8>
    let isASCII: Bool

    init(text: String, bytes: UnsafeBufferPointer<UInt8>) {
        self.text = text
        self.bytes = bytes
        isASCII = Self.isASCII(bytes)
    }

    /// Whether the path is `literal` (ASCII).
    func `is`(_ literal: StaticString) -> Bool {
        guard isASCII else { return text == literal.description }
        return bytes.count == literal.utf8CodeUnitCount && literal.withUTF8Buffer { equalBytes(bytes, $0) }
    }

    /// Whether the path is `other` (a string that is not a literal).
    func equals(_ other: String) -> Bool {
        guard isASCII else { return text == other }
        return bytes.count == other.utf8.count && other.utf8.elementsEqual(bytes)
    }

    /// Whether the path starts with `prefix` (ASCII), compared as characters.
    func hasPrefix(_ prefix: StaticString) -> Bool {
        bytesStart(with: prefix) && (isASCII || text.hasPrefix(prefix.description))
    }

    /// Whether the path's bytes start with `prefix`'s.
    func bytesStart(with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        return bytes.count >= count
            && prefix.withUTF8Buffer { equalBytes(UnsafeBufferPointer(rebasing: bytes[..<count]), $0) }
    }

    /// What follows `prefix` (which the path has) when it is one non-empty segment.
    func lastSegment(after prefix: StaticString) -> String? {
        let id = text.dropFirst(prefix.utf8CodeUnitCount)
        return id.isEmpty || id.contains("/") ? nil : String(id)
    }

    /// No byte above 0x7F, read eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        var word: UInt64 = 0
        if let base = UnsafeRawPointer(bytes.baseAddress) {
            while index + 8 <= bytes.count {
                word |= base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
        }
        var byte: UInt8 = 0
        while index < bytes.count {
            byte |= bytes[index]
            index += 1
        }
        return word & 0x8080_8080_8080_8080 == 0 && byte & 0x80 == 0
    }
}

/// The `/`-separated segments of a path as byte ranges (empty segments kept; the leading `/`
/// makes segment 0 empty). At most 9 are kept, in memory the caller lends (on its stack: an
/// inline array was copied whole at each read): no route has more than 8 (a longer path shows
/// as 9 and matches none), and this runs for every request.
private struct PathSegments {
    static var capacity: Int { 9 }
    let bytes: UnsafeBufferPointer<UInt8>
    private let ranges: UnsafeMutableBufferPointer<Range<Int>>
    private(set) var count = 0

    /// - Parameter ranges: room for ``capacity`` ranges.
    init(_ bytes: UnsafeBufferPointer<UInt8>, ranges: UnsafeMutableBufferPointer<Range<Int>>) {
        precondition(ranges.count >= Self.capacity)
        self.bytes = bytes
        self.ranges = ranges
        guard let base = bytes.baseAddress else {
            append(0..<0)
            return
        }
        var start = 0
        // Each `/` found with memchr(3).
        while let slash = memchr(base + start, Int32(UInt8(ascii: "/")), bytes.count - start) {
            let index = UnsafeRawPointer(slash) - UnsafeRawPointer(base)
            append(start..<index)
            start = index + 1
            if count == Self.capacity { return }
        }
        append(start..<bytes.count)
    }

    private mutating func append(_ range: Range<Int>) {
        ranges.initializeElement(at: count, to: range)
        count += 1
    }

    private func range(_ index: Int) -> Range<Int> {
        precondition(index < count)
        return ranges[index]
    }

    func `is`(_ index: Int, _ literal: StaticString) -> Bool {
        let range = range(index)
        return range.count == literal.utf8CodeUnitCount
            && literal.withUTF8Buffer { equalBytes(UnsafeBufferPointer(rebasing: bytes[range]), $0) }
    }

    func text(_ index: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range(index)]), as: UTF8.self)
    }

    /// `name:method` → (`name`, `method`); no colon → (segment, nil).
    func splitAtColon(_ index: Int) -> (String, String?) {
        let range = range(index)
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
