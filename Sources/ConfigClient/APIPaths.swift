import Foundation

/// URLs of the server's HTTP API for one project, and for the templates of one of its
/// environments.
struct APIPaths: Sendable {
    let baseURL: String
    let project: String
    /// The environment whose templates `remoteConfig` and `namespaced` name; `nil` or
    /// `production` for the Firebase paths, which serve production (docs/environments.md).
    let environment: String?

    init(baseURL: String, project: String, environment: String? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.project = project
        self.environment = environment == Self.production ? nil : environment
    }

    /// The environment every project has, served by the Firebase paths.
    static let production = "production"

    private var projectPath: String {
        "\(baseURL)/v1/projects/\(Self.escape(project))"
    }

    /// Where the template calls live: the project's path for production, else
    /// `…/environments/{environment}`.
    private var templatePath: String {
        projectPath + (environment.map { "/environments/\(Self.escape($0))" } ?? "")
    }

    func fetch(namespace: String) -> String {
        "\(projectPath)/namespaces/\(Self.escape(namespace)):fetch"
    }

    func streamInvalidations(namespace: String) -> String {
        "\(projectPath)/namespaces/\(Self.escape(namespace)):streamFetchInvalidations"
    }

    /// `remoteConfig`, or a custom method on it such as `:listVersions`, with a query.
    func remoteConfig(_ method: String = "", query: [(String, String)] = []) -> String {
        let url = "\(templatePath)/remoteConfig\(method)"
        guard !query.isEmpty else { return url }
        return url + "?" + query.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
    }

    /// `/v1/principals` or `/v1/tokens[/{id}]`: server-wide resources.
    func server(_ resource: String, _ id: String? = nil) -> String {
        "\(baseURL)/v1/\(resource)" + (id.map { "/\(Self.escape($0))" } ?? "")
    }

    /// `/v1/projects/{project}[/environments/{e}]/namespaces/{ns}/{resource}[/{id}[:step]]`, with
    /// a query: change control (`changePolicy`, `changeRequests`), usage, comparisons.
    func namespaced(_ namespace: String, _ resource: String, _ id: String? = nil, step: String? = nil,
                    query: [(String, String)] = []) -> String {
        var url = "\(templatePath)/namespaces/\(Self.escape(namespace))/\(resource)" + (id.map { "/\(Self.escape($0))" } ?? "")
        if let step { url += ":" + step }
        guard !query.isEmpty else { return url }
        return url + "?" + query.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
    }

    /// `/v1/projects/{project}/environments[/{id}]`: the environments themselves.
    func environments(_ id: String? = nil) -> String {
        "\(projectPath)/environments" + (id.map { "/\(Self.escape($0))" } ?? "")
    }

    /// `/v1/projects/{project}/apiKeys[/{id}]`.
    func apiKeys(_ id: String? = nil) -> String {
        "\(projectPath)/apiKeys" + (id.map { "/\(Self.escape($0))" } ?? "")
    }

    /// `/v1/auditLog` with a query.
    func auditLog(query: [(String, String)]) -> String {
        let url = server("auditLog")
        guard !query.isEmpty else { return url }
        return url + "?" + query.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
    }

    /// `/v1/projects/{project}/members[/{principal}]`.
    func members(_ principal: String? = nil) -> String {
        "\(projectPath)/members" + (principal.map { "/\(Self.escape($0))" } ?? "")
    }

    /// `/v1/projects/{project}/webhooks[/{id}]` and what follows (`:test`, `/deliveries`, …).
    func webhooks(_ id: String? = nil, _ rest: String = "") -> String {
        "\(projectPath)/webhooks" + (id.map { "/\(Self.escape($0))" } ?? "") + rest
    }

    /// `/v1/projects/{project}/usageSettings`.
    var usageSettings: String { "\(projectPath)/usageSettings" }

    /// Percent-encodes one path segment or query component.
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
