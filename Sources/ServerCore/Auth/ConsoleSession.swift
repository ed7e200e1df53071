package import ConfigCore
package import Foundation
package import HTTP1

/// A person signed in to the console through the identity provider (docs/access.md, "Sign-in").
/// Kept with the other access records, so that every worker and node knows it, and ending it
/// (sign-out, an admin's revocation) takes effect everywhere as a revoked token does. The
/// browser holds the secret in an `HttpOnly` cookie; the record keeps only its SHA-256.
package struct ConsoleSession: Codable, Sendable, Equatable {
    /// Also the second part of the secret (`rcs_ses_<id>_<random>`), which finds the record.
    package var id: String
    /// The principal's id (the person's email).
    package var principal: String
    var sha256: String
    package var createTime: Timestamp
    /// When it was last seen in use, to the precision `refreshInterval` allows.
    package var lastSeenTime: Timestamp
    /// The end, however busy it is.
    package var expireTime: Timestamp
    /// Roles the ID token gave (`signIn.roleMappings`), project (or `*`) → role, on top of the
    /// principal's memberships.
    var claimRoles: [String: String]
    var claimOwner: Bool

    static let cookieName = "rcs_session"
    /// `rcs_ses_<id>_<random>`.
    static let secrets = IdentifiedSecret(prefix: "rcs_ses_", idBytes: 8)

    /// A new session's id and secret.
    static func mint() -> (id: String, secret: String) { secrets.mint() }

    /// The id named by a presented secret, if it has the form of one.
    static func id(inSecret secret: String) -> String? { secrets.id(in: secret) }

    /// The token state-changing console calls carry in `X-CSRF-Token`: derived from the secret,
    /// so it needs no storage, and a page of another site can neither read nor guess it.
    package static func csrfToken(forSecret secret: String) -> String {
        SecretDigest(secret: "csrf\u{0}" + secret).hex
    }

    package func isUsable(at now: Date, idle: TimeInterval) -> Bool {
        now < expireTime.date && now.timeIntervalSince(lastSeenTime.date) < idle
    }

    /// The session secret in a request's `Cookie` fields, if any.
    package static func secret(in headers: HTTPHeaders) -> String? {
        for field in headers.values("Cookie") {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// `Set-Cookie` for `secret` (nil: the cookie's removal). `Secure` when the browser came over
    /// TLS, as a trusted proxy says.
    package static func cookie(_ secret: String?, maxAge: Int, secure: Bool) -> String {
        var fields = ["\(cookieName)=\(secret ?? "")", "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=\(secret == nil ? 0 : maxAge)"]
        if secure { fields.append("Secure") }
        return fields.joined(separator: "; ")
    }
}
