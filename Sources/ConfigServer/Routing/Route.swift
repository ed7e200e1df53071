import HTTP1

/// What a request path names. `{project}` is a project id or number, `{ns}` a namespace.
enum Route: Equatable {
    case health
    case ready
    case metrics
    case openAPI
    /// `/v1/projects`
    case projects
    /// `/v1/projects/{project}/apiKeys`
    case apiKeys(project: String)
    /// `/v1/projects/{project}[/namespaces/{ns}]/remoteConfig[:method]`
    case template(project: String, namespace: String, method: String?)
    /// `/v1/projects/{project}/namespaces/firebase-server/serverRemoteConfig`
    case serverTemplate(project: String)
    /// `/v1/projects/{project}/namespaces/{ns}:fetch`
    case fetch(project: String, namespace: String)
    /// `/v1/projects/{project}/namespaces/{ns}:streamFetchInvalidations`
    case stream(project: String, namespace: String)

    /// Matches a percent-decoded path (so `%3A` already reads as `:`).
    init?(path: String) {
        switch path {
        case "/healthz": self = .health; return
        case "/readyz": self = .ready; return
        case "/metrics": self = .metrics; return
        case "/openapi.json": self = .openAPI; return
        case "/v1/projects": self = .projects; return
        default: break
        }
        let parts = path.split(ascii: UInt8(ascii: "/")).dropFirst()
        guard parts.count >= 3, parts.first == "v1", parts.dropFirst().first == "projects" else { return nil }
        let rest = Array(parts.dropFirst(2))
        let project = String(rest[0])
        guard !project.isEmpty else { return nil }
        switch rest.count {
        case 2:
            if rest[1] == "apiKeys" { self = .apiKeys(project: project); return }
            guard let method = Self.templateMethod(rest[1]) else { return nil }
            self = .template(project: project, namespace: "firebase", method: method)
        case 3:
            guard rest[1] == "namespaces" else { return nil }
            let (namespace, method) = Self.split(rest[2])
            switch method {
            case "fetch": self = .fetch(project: project, namespace: namespace)
            case "streamFetchInvalidations": self = .stream(project: project, namespace: namespace)
            default: return nil
            }
        case 4:
            guard rest[1] == "namespaces" else { return nil }
            let namespace = String(rest[2])
            if rest[3] == "serverRemoteConfig" {
                guard namespace == "firebase-server" else { return nil }
                self = .serverTemplate(project: project)
                return
            }
            guard let method = Self.templateMethod(rest[3]) else { return nil }
            self = .template(project: project, namespace: namespace, method: method)
        default:
            return nil
        }
    }

    /// `remoteConfig` → `""`; `remoteConfig:listVersions` → `"listVersions"`; else nil.
    private static func templateMethod(_ segment: Substring) -> String?? {
        let (resource, method) = split(segment)
        guard resource == "remoteConfig" else { return nil }
        return .some(method)
    }

    private static func split(_ segment: Substring) -> (String, String?) {
        guard let colon = segment.utf8.firstIndex(of: UInt8(ascii: ":")) else { return (String(segment), nil) }
        return (String(segment[..<colon]), String(segment[segment.utf8.index(after: colon)...]))
    }
}
