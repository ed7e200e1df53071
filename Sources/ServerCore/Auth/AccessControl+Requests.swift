import ConfigCore
import ConfigStore
import Foundation
import HTTP1

/// Valid credentials that lack the role a call needs: the request checks keep the refusal in the
/// audit log, then answer `error`.
struct RoleRefusal: Error {
    let identity: AccessControl.AdminIdentity
    let error: APIError
}

/// The credentials a request presents, checked against what `AccessControl` knows.
extension AccessControl {
    /// The admin the request's credentials name (`Exchange.caller`): 401 without credentials
    /// or with an ended session, 403 with credentials that are not an admin token (e.g. a
    /// client API key), and for a session's call that changes something without its CSRF token.
    func requireAdmin(_ exchange: Exchange) throws -> AdminIdentity {
        switch exchange.caller {
        case .anonymous:
            throw APIError(401, "Missing admin credentials: send 'Authorization: Bearer <admin token>'.")
        case .malformedAuthorization:
            throw APIError(401, "The Authorization header must be 'Bearer <admin token>'.")
        case .unknownToken:
            throw APIError(403, "The credentials are not a valid admin token.")
        case .endedSession:
            throw APIError(401, "The console session has ended (signed out, expired or revoked): sign in again.")
        case .admin(let identity, nil):
            return identity
        case .admin(let identity, let secret?):
            let csrf = exchange.request.head.headers["X-CSRF-Token"]
            guard Self.isSafe(exchange.request.head.method)
                || csrf.map({ Self.constantTimeEqual($0, ConsoleSession.csrfToken(forSecret: secret)) }) == true
            else { throw APIError(403, "A console call that changes something must carry the session's X-CSRF-Token.") }
            return identity
        }
    }

    /// GET, HEAD and OPTIONS change nothing (RFC 9110 §9.2.1).
    private static func isSafe(_ method: HTTPMethod) -> Bool {
        method == .get || method == .head || method == .options
    }

    /// The admin behind the request's credentials, if it holds `needed` on `project` (for
    /// `owner`, on the server; without a project, on at least one), on the templates of
    /// `environment` when the call acts on one: else a `RoleRefusal`, whose error is a 403 in
    /// Google's shape that names the missing role.
    func require(_ needed: Role, on project: StoredProject?, in environment: EnvironmentID? = nil,
                 _ exchange: Exchange) throws -> AdminIdentity {
        let identity = try requireAdmin(exchange)
        guard needed != .owner else {
            guard identity.isOwner else {
                throw RoleRefusal(identity: identity, error: APIError(
                    403, "This call needs the role 'owner' of the server; '\(identity.name)' does not hold it."))
            }
            return identity
        }
        guard let project else {
            // A call beyond one project (principals, tokens): the role on some project; the
            // endpoint limits it to those projects.
            guard identity.isOwner || identity.roles?.values.contains(where: { $0 >= needed }) == true else {
                throw RoleRefusal(identity: identity, error: APIError(
                    403, "This call needs the role '\(needed)' on at least one project; '\(identity.name)' holds it on none."))
            }
            return identity
        }
        let held = environment.map { identity.role(on: project.id, in: $0) } ?? identity.role(on: project.id)
        guard let held, held >= needed else {
            let holds = held.map { "holds '\($0)' there" } ?? "holds no role there"
            let place = environment.flatMap { $0 == .production ? nil : "environment '\($0)' of project '\(project.id)'" }
                ?? "project '\(project.id)'"
            throw RoleRefusal(identity: identity, error: APIError(
                403, "This call needs the role '\(needed)' on \(place); '\(identity.name)' \(holds)."))
        }
        return identity
    }

    /// Fetch and real-time need one of the project's API keys (or an admin token), unless the
    /// server is configured to need none.
    /// - Parameter project: the project the route names (the client API's always name one); an
    ///   optional, lent as it is: unwrapping it at the call copied it, on every fetch.
    /// - Returns: the environment the request is served: its key's; production for an admin's
    ///   token, or when no key is needed and none was sent.
    func requireClientKey(_ exchange: Exchange, project: StoredProject?) throws -> EnvironmentID {
        guard let id = project?.id else { preconditionFailure("a client key is checked on a route that names a project") }
        let headers = exchange.request.head.headers
        if let key = headers["X-Goog-Api-Key"] ?? exchange.uri["key"] {
            if let environment = clientKeys.environment(ofKey: key, project: id) { return environment }
            guard apiKeyRequired else { return .production }
            throw APIError(403, "API key not valid for project '\(id)'.")
        }
        guard apiKeyRequired else { return .production }
        if headers["Authorization"] != nil {
            // Admin credentials are looked up only here: the client API's routes need none.
            var exchange = exchange
            exchange.caller = caller(presenting: headers)
            if (try? require(.viewer, on: project, exchange)) != nil { return .production }
        }
        throw APIError(401, "Missing API key: send 'X-Goog-Api-Key' or '?key='.")
    }
}
