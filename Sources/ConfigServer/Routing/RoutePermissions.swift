import HTTP1

/// The role every call of the management API needs, in one table (docs/access.md): a refusal
/// names it.
enum RoutePermissions {
    /// What `method` on `route` needs; nil for calls that need no admin credentials (health,
    /// the OpenAPI document, the console's files, and the client API, which takes API keys).
    /// - Parameter validateOnly: a template `PUT` with `validateOnly=true` publishes nothing.
    static func role(for route: Route, method: HTTPMethod, validateOnly: Bool = false) -> Role? {
        switch route {
        case .health, .ready, .openAPI, .console, .fetch, .stream, .ofrepEvaluation, .ofrepEventStream, .signIn:
            return nil
        case .metrics:
            return .owner
        case .sessions:
            // An owner lists and ends anyone's sessions (someone who left the team keeps no
            // roles their ID token gave); anyone else, their own (checked by the endpoint).
            return .viewer
        case .principals, .tokens:
            // A project's admin lists principals, adds service accounts, and makes and revokes
            // tokens limited to the projects it administers; an owner, any.
            return .admin
        case .members:
            return .admin
        case .audit:
            // An owner reads every entry; a project's admin the project's (`?project=`).
            return .admin
        case .projects:
            // Listing shows each caller the projects it holds a role on.
            return method == .get ? .viewer : .owner
        case .apiKeys:
            return .admin
        case .webhooks, .webhookDeliveries:
            // Endpoints, their secrets and their delivery log: the project's admins only.
            return .admin
        case .serverTemplate:
            return .viewer
        case .me:
            // Any valid credentials: they are asked about themselves.
            return .viewer
        case .changePolicy:
            return method == .get ? .viewer : .admin
        case .changeRequests(_, _, _, nil):
            // Reading, proposing and editing (the author's own, or an admin's: checked by the endpoint).
            return method == .get ? .viewer : .editor
        case .changeRequests(_, _, _, let step?):
            switch ChangeStep(rawValue: step) {
            case .approve?, .reject?, .schedule?, .apply?: return .publisher
            case .cancel?: return .editor
            case nil: return .viewer
            }
        case .template(_, _, nil):
            guard method == .put else { return .viewer }
            return validateOnly ? .editor : .publisher
        case .template(_, _, let custom?):
            switch TemplateMethod(rawValue: custom) {
            case .rollback?, .promote?, .abort?: return .publisher
            case .canary?: return method == .get ? .viewer : .publisher
            case .listVersions?, .diff?, .evaluate?, .adoption?, .downloadDefaults?, nil: return .viewer
            }
        }
    }
}
