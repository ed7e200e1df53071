private import CLibCrypto
import Foundation

/// Checks an OpenID Connect ID token (a JWS in compact form) for sign-in: its signature against
/// the provider's JSON web keys (RS256 or ES256 only: `none`, HMAC and every other algorithm are
/// refused), then `iss`, `aud`, `exp`, `iat` (with a bounded clock skew) and `nonce`.
struct IDTokenVerifier: Sendable {
    /// Who the token says signed in.
    struct Identity: Sendable, Equatable {
        let subject: String
        let email: String?
        /// The `email_verified` claim; nil when the token does not say.
        let emailVerified: Bool?
        let name: String?
        let groups: [String]
    }

    enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case unsupportedAlgorithm(String)
        /// No key with the token's `kid`: fetch the provider's keys again, once.
        case unknownKey(String?)
        case badSignature
        case wrongIssuer(String?)
        case wrongAudience
        case expired
        case issuedInTheFuture
        case wrongNonce

        var description: String {
            switch self {
            case .malformed(let why): "the ID token is malformed: \(why)"
            case .unsupportedAlgorithm(let alg): "the ID token's algorithm '\(alg)' is not accepted (RS256 or ES256)"
            case .unknownKey(let kid): "no key of the provider has the ID token's kid '\(kid ?? "")'"
            case .badSignature: "the ID token's signature does not verify"
            case .wrongIssuer(let issuer): "the ID token comes from '\(issuer ?? "")', not the configured issuer"
            case .wrongAudience: "the ID token is not for this client"
            case .expired: "the ID token has expired"
            case .issuedInTheFuture: "the ID token is issued in the future"
            case .wrongNonce: "the ID token's nonce is not this sign-in's"
            }
        }
    }

    let issuer: String
    let clientID: String
    let keys: JSONWebKeySet
    /// The claim that lists the person's groups (`signIn.groupsClaim`).
    var groupsClaim = "groups"
    /// How far the provider's clock may be from ours.
    var allowedSkew: TimeInterval = 120

    func verify(_ token: String, nonce: String, now: Date) throws(Failure) -> Identity {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else { throw .malformed("not three base64url parts") }
        guard let header = Self.object(headerBytes), let claims = Self.object(payloadBytes) else {
            throw .malformed("a part is not a JSON object")
        }
        let algorithm = header["alg"] as? String ?? ""
        guard algorithm == "RS256" || algorithm == "ES256" else { throw .unsupportedAlgorithm(algorithm) }
        let kid = header["kid"] as? String
        guard let key = keys.key(kid) else { throw .unknownKey(kid) }
        guard key.isEC == (algorithm == "ES256"),
              key.verify(Array("\(parts[0]).\(parts[1])".utf8), signature: signature) else { throw .badSignature }
        guard claims["iss"] as? String == issuer else { throw .wrongIssuer(claims["iss"] as? String) }
        let audiences = (claims["aud"] as? [String]) ?? [(claims["aud"] as? String)].compactMap { $0 }
        guard audiences.contains(clientID) else { throw .wrongAudience }
        guard let expires = (claims["exp"] as? NSNumber)?.doubleValue, let issued = (claims["iat"] as? NSNumber)?.doubleValue else {
            throw .malformed("exp or iat is missing")
        }
        let seconds = now.timeIntervalSince1970
        guard seconds < expires + allowedSkew else { throw .expired }
        guard issued <= seconds + allowedSkew else { throw .issuedInTheFuture }
        guard claims["nonce"] as? String == nonce else { throw .wrongNonce }
        guard let subject = claims["sub"] as? String, !subject.isEmpty else { throw .malformed("sub is missing") }
        return Identity(subject: subject, email: claims["email"] as? String, emailVerified: claims["email_verified"] as? Bool,
                        name: claims["name"] as? String, groups: claims[groupsClaim] as? [String] ?? [])
    }

    private static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
}

/// A provider's signing keys (its `jwks_uri` document), by `kid`. Keys of other types, curves or
/// uses are left out.
struct JSONWebKeySet: Sendable {
    private let keys: [String: JSONWebKey]
    /// The one key when the set has one and a token names none.
    private let only: JSONWebKey?

    init(json: [UInt8]) throws(IDTokenVerifier.Failure) {
        guard let document = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any],
              let entries = document["keys"] as? [[String: Any]] else { throw .malformed("the key set is not {\"keys\": […]}") }
        var keys: [String: JSONWebKey] = [:]
        for entry in entries where (entry["use"] as? String ?? "sig") == "sig" {
            guard let key = JSONWebKey(entry) else { continue }
            keys[key.kid] = key
        }
        self.keys = keys
        only = keys.count == 1 ? keys.values.first : nil
    }

    func key(_ kid: String?) -> JSONWebKey? {
        guard let kid else { return only }
        return keys[kid]
    }
}

/// One public key, held by libcrypto.
final class JSONWebKey: @unchecked Sendable {
    // @unchecked: the key is immutable once made, and libcrypto verifies with it from any thread.
    let kid: String
    let isEC: Bool
    private let key: OpaquePointer

    init?(_ entry: [String: Any]) {
        let kid = entry["kid"] as? String ?? ""
        let made: OpaquePointer?
        switch entry["kty"] as? String {
        case "RSA":
            guard let n = (entry["n"] as? String).flatMap(Base64URL.decode), let e = (entry["e"] as? String).flatMap(Base64URL.decode)
            else { return nil }
            isEC = false
            made = rcs_public_key(0, n, n.count, e, e.count)
        case "EC":
            guard entry["crv"] as? String == "P-256", let x = (entry["x"] as? String).flatMap(Base64URL.decode),
                  let y = (entry["y"] as? String).flatMap(Base64URL.decode) else { return nil }
            isEC = true
            made = rcs_public_key(1, x, x.count, y, y.count)
        default:
            return nil
        }
        guard let made else { return nil }
        self.kid = kid
        key = made
    }

    deinit { rcs_free_key(key) }

    func verify(_ data: [UInt8], signature: [UInt8]) -> Bool {
        rcs_verify_sha256(key, isEC ? 1 : 0, data, data.count, signature, signature.count) == 1
    }
}

/// Base64 with the URL alphabet and no padding (RFC 7515 §2).
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}
