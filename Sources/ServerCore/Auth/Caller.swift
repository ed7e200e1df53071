import Foundation
import HTTP1

/// Who a request's admin credentials say it is: a bearer token, else the console's session
/// cookie. Looked up once per request, before its checks, and carried on the exchange, so that
/// the role check and the audit log read one answer.
enum Caller: Sendable {
    /// No credentials.
    case anonymous
    /// An `Authorization` field that is not `Bearer <token>`.
    case malformedAuthorization
    /// A bearer token that is no admin token (a client API key, say).
    case unknownToken
    /// A session cookie of no live session (signed out, expired or revoked).
    case endedSession
    /// An admin; with the session's secret when they came with the console's cookie (their
    /// calls that change something carry the CSRF token derived from it).
    case admin(AccessControl.AdminIdentity, sessionSecret: String?)

    var identity: AccessControl.AdminIdentity? {
        guard case .admin(let identity, _) = self else { return nil }
        return identity
    }
}

/// The token of an `Authorization: Bearer <token>` field (RFC 6750 §2.1; the scheme is
/// case-insensitive): admin tokens and OFREP's client keys come so.
package enum BearerToken {
    /// Nil for another scheme, or no token.
    package static func presented(in field: String?) -> String? {
        guard let field, field.utf8.count > 7, field.prefix(7).lowercased() == "bearer " else { return nil }
        let token = field.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

extension AccessControl {
    /// Who `headers` present: a bearer token wins over a session cookie.
    func caller(presenting headers: HTTPHeaders) -> Caller {
        if let field = headers["Authorization"] {
            guard let token = BearerToken.presented(in: field) else { return .malformedAuthorization }
            return admin(bearer: token).map { .admin($0, sessionSecret: nil) } ?? .unknownToken
        }
        guard let secret = ConsoleSession.secret(in: headers) else { return .anonymous }
        guard let (_, identity) = admin(session: secret) else { return .endedSession }
        return .admin(identity, sessionSecret: secret)
    }
}
