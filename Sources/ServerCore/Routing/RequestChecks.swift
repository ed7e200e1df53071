import ConfigCore
import ConfigStore
import HTTP1

/// What every request passes before its route's handler runs, in the order their errors are
/// answered: the project and namespace its route names exist (404), then the caller holds what
/// the route asks (401, 403; a refusal for a missing role is kept in the audit log), then the
/// route's own rules.
package struct RequestChecks: Sendable {
    let access: AccessControl
    let projects: ProjectDirectory
    /// A console session's use keeps it alive.
    let sessions: ConsoleSessions
    let audit: AuditTrail

    package init(access: AccessControl, projects: ProjectDirectory, sessions: ConsoleSessions, audit: AuditTrail) {
        self.access = access
        self.projects = projects
        self.sessions = sessions
        self.audit = audit
    }

    /// Who the request's admin credentials say it is.
    func caller(of exchange: Exchange) -> Caller {
        access.caller(presenting: exchange.request.head.headers)
    }

    /// What the handler of `exchange`'s route is given, once the request passed the checks of
    /// its access (then `checkRules`).
    func arguments(for exchange: Exchange) throws -> RouteArguments {
        // The declaration's fields are read where they are (binding it would copy it whole), and
        // the arguments are made once, at the end (a value built up and returned was copied).
        let route = exchange.route
        let project = try namedProject(exchange)
        var environment = try route.environmentIndex.map { try projects.environment(exchange.parameter(at: $0), of: project) }
            ?? .production
        let kind = try route.namespaceIndex.map { try TemplateNamespace.Kind.named(exchange.parameter(at: $0)) }
            ?? route.declaration.impliedNamespace?.kind
        if case .clientKey = route.declaration.access {
            // A client's key chooses the environment it is served (production for an admin's).
            environment = try access.requireClientKey(exchange, project: project)
        }
        let identity: AccessControl.AdminIdentity?
        switch route.declaration.access {
        case .open, .keyNamingProject, .clientKey:
            identity = nil
        case .signedIn:
            identity = try access.requireAdmin(exchange)
        case .role(let asked):
            let needed = route.neededRole(asked, for: exchange.uri,
                                          RouteArguments(project: project, kind: kind, environment: environment))
            // A call on a template is checked on its environment; any other on the project.
            identity = try requireRole(needed, exchange, project: project, environment: kind == nil ? nil : environment)
        }
        return RouteArguments(project: project, kind: kind, environment: environment, identity: identity)
    }

    /// The checks the route's rules add, once the caller holds the role (change control's).
    func checkRules(_ exchange: Exchange, _ arguments: RouteArguments) throws {
        for rule in exchange.route.declaration.rules { try rule.check(exchange, arguments) }
    }

    /// The project the route names: its path's `{project}`, or the query parameter it declares.
    private func namedProject(_ exchange: Exchange) throws -> StoredProject? {
        if let index = exchange.route.projectIndex { return try projects.resolve(exchange.parameter(at: index)) }
        guard let name = exchange.route.declaration.projectQueryParameter else { return nil }
        return try exchange.uri.parameter(name).map { try projects.resolve($0) }
    }

    /// The admin behind the request, holding `role` on `project` (beyond one project when nil);
    /// a refusal for a missing role is kept in the audit log.
    private func requireRole(_ role: Role, _ exchange: Exchange, project: StoredProject?,
                             environment: EnvironmentID?) throws -> AccessControl.AdminIdentity {
        do {
            let identity = try access.require(role, on: project, in: environment, exchange)
            if let session = identity.sessionID { sessions.noteUse(of: session) }
            return identity
        } catch let refusal as RoleRefusal {
            audit.refused(exchange, actor: refusal.identity, project: project)
            throw refusal.error
        }
    }
}
