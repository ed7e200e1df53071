/// What a principal may do (docs/access.md). Each role holds every right of those below it; the
/// first four are held per project, `owner` on the whole server.
package enum Role: Int, Comparable, CaseIterable, Sendable, CustomStringConvertible {
    /// Templates, history, diff, evaluate, adoption.
    case viewer
    /// A viewer who may also validate templates (and, later, propose changes).
    case editor
    /// An editor who may also publish, roll back and step canaries.
    case publisher
    /// A publisher who may also manage the project's client API keys.
    case admin
    /// Every right on every project, and creating projects; the config file's admin tokens
    /// (and `RCS_ADMIN_TOKEN`) without roles are owners.
    case owner

    /// The roles a project can grant: every one but `owner`.
    static let projectRoles: [Role] = [.viewer, .editor, .publisher, .admin]

    /// The project role `name` names; nil for `owner` and unknown names.
    package static func projectRole(named name: String) -> Role? {
        Role(name: name).flatMap { projectRoles.contains($0) ? $0 : nil }
    }

    /// `'viewer', 'editor', 'publisher', 'admin'`, for messages.
    package static let projectRoleNames = projectRoles.map { "'\($0)'" }.joined(separator: ", ")

    init?(name: String) {
        guard let role = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = role
    }

    package var description: String {
        switch self {
        case .viewer: "viewer"
        case .editor: "editor"
        case .publisher: "publisher"
        case .admin: "admin"
        case .owner: "owner"
        }
    }

    package static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }
}
