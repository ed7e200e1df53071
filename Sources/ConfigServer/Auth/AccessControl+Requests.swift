import ConfigStore
import Foundation
import HTTP1

/// Valid credentials that lack the role a call needs: the router keeps the refusal in the audit
/// log, then answers `error`.
struct RoleRefusal: Error {
    let identity: AccessControl.AdminIdentity
    let error: APIError
}

/// The credentials a request presents, checked against what `AccessControl` knows.
extension AccessControl {
    /// The admin behind `Authorization: Bearer <token>`: 401 without credentials, 403 with
    /// credentials that are not an admin token (e.g. a client API key).
    func requireAdmin(_ exchange: Exchange) throws -> AdminIdentity {
        guard let header = exchange.request.head.headers["Authorization"] else {
            throw APIError(401, "Missing admin credentials: send 'Authorization: Bearer <admin token>'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError(401, "The Authorization header must be 'Bearer <admin token>'.")
        }
        guard let identity = admin(bearer: String(parts[1]).trimmingCharacters(in: .whitespaces)) else {
            throw APIError(403, "The credentials are not a valid admin token.")
        }
        return identity
    }

    /// The admin behind the request's credentials, if it holds `needed` on `project` (for
    /// `owner`, on the server): else a `RoleRefusal`, whose error is a 403 in Google's shape that
    /// names the missing role.
    func require(_ needed: Role, on project: StoredProject?, _ exchange: Exchange) throws -> AdminIdentity {
        let identity = try requireAdmin(exchange)
        guard needed != .owner else {
            guard identity.isOwner else {
                throw RoleRefusal(identity: identity, error: APIError(
                    403, "This call needs the role 'owner' of the server; '\(identity.name)' does not hold it."))
            }
            return identity
        }
        guard let project else { return identity }
        let held = identity.role(on: project.id)
        guard let held, held >= needed else {
            let holds = held.map { "holds '\($0)' there" } ?? "holds no role there"
            throw RoleRefusal(identity: identity, error: APIError(
                403, "This call needs the role '\(needed)' on project '\(project.id)'; '\(identity.name)' \(holds)."))
        }
        return identity
    }

    /// Fetch and real-time need one of the project's API keys (or an admin token), unless the
    /// server is configured to need none.
    func requireClientKey(_ exchange: Exchange, project: StoredProject) throws {
        guard apiKeyRequired else { return }
        let headers = exchange.request.head.headers
        if let key = headers["X-Goog-Api-Key"] ?? exchange.uri["key"] {
            guard isValidAPIKey(key, project: project.id) else {
                throw APIError(403, "API key not valid for project '\(project.id)'.")
            }
            return
        }
        if headers["Authorization"] != nil, (try? require(.viewer, on: project, exchange)) != nil { return }
        throw APIError(401, "Missing API key: send 'X-Goog-Api-Key' or '?key='.")
    }
}
