package import ConfigCore
package import OutboundHTTP
import Foundation
package import ServerCore
import Synchronization

/// The identity provider as the server calls it (docs/access.md, "Sign-in"): its discovery
/// document and signing keys, cached, and the code exchange. Every call goes through libcurl on
/// a thread of its own with a time-out, never on an event loop, so a provider that is slow or
/// down fails sign-in and nothing else.
package final class OIDCProvider: Sendable {
    /// What `/.well-known/openid-configuration` says (OpenID Connect Discovery 1.0 §3).
    struct Endpoints: Sendable, Decodable {
        let issuer: String
        let authorizationEndpoint: String
        let tokenEndpoint: String
        let jwksURI: String

        enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case jwksURI = "jwks_uri"
        }
    }

    private struct Cache {
        var endpoints: (value: Endpoints, time: Date)?
        var keys: JSONWebKeySet?
        /// When the keys were last fetched again for an unknown `kid`.
        var lastRefresh: Date?
    }

    let settings: SignInSettings
    private let transport: any HTTPTransport
    /// When the cache was filled, and what tokens' times are checked against.
    private let clock: any WallClock
    private let cache = Mutex(Cache())
    /// How long the discovery document is trusted before it is read again.
    private static let endpointsLifetime: TimeInterval = 3_600
    /// Keys are fetched again on a `kid` they lack, but not more often than this (tokens naming
    /// made-up keys must not make the server hammer the provider).
    private static let keysRefetchInterval: TimeInterval = 10

    package init(settings: SignInSettings, clock: any WallClock, transport: any HTTPTransport = CurlTransport()) {
        self.settings = settings
        self.clock = clock
        self.transport = transport
    }

    /// The provider's endpoints, from the cache or its discovery document.
    func endpoints() async throws(SignInFailure) -> Endpoints {
        if let cached = cache.withLock({ $0.endpoints }), clock.now.timeIntervalSince(cached.time) < Self.endpointsLifetime {
            return cached.value
        }
        let url = settings.issuer + "/.well-known/openid-configuration"
        let body = try await get(url, what: "discovery document")
        guard let endpoints = try? JSONDecoder().decode(Endpoints.self, from: body) else {
            throw SignInFailure(502, "The identity provider's discovery document at \(url) lacks issuer, authorization_endpoint, "
                + "token_endpoint or jwks_uri.")
        }
        // OpenID Connect Discovery §4.3: the document must name the issuer it was read from.
        guard endpoints.issuer == settings.issuer else {
            throw SignInFailure(502, "The identity provider says its issuer is '\(endpoints.issuer)', not the configured "
                + "'\(settings.issuer)'.")
        }
        cache.withLock { $0.endpoints = (endpoints, clock.now) }
        return endpoints
    }

    /// Redeems an authorization code for the ID token (RFC 6749 §4.1.3, with the PKCE verifier).
    func idToken(code: String, verifier: String, redirectURI: String) async throws(SignInFailure) -> String {
        let endpoints = try await endpoints()
        var form = ["grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI, "code_verifier": verifier]
        var headers = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        if settings.clientSecret.isEmpty {
            form["client_id"] = settings.clientID
        } else {
            // client_secret_basic (RFC 6749 §2.3.1): each part form-encoded first.
            let credentials = Self.formEncode(settings.clientID) + ":" + Self.formEncode(settings.clientSecret)
            headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
        }
        let body = form.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.formEncode($0.value))" }.joined(separator: "&")
        let request = HTTPRequest(method: .post, url: endpoints.tokenEndpoint, headers: headers, body: Data(body.utf8),
                                  timeout: TimeInterval(settings.providerTimeoutSeconds))
        let response = try await send(request, what: "token endpoint")
        let answer = TokenAnswer(response)
        guard response.status == 200, let token = answer.idToken else {
            throw SignInFailure(502, "The identity provider refused the sign-in code: \(answer.error ?? "HTTP \(response.status)").")
        }
        return token
    }

    /// Checks an ID token against the provider's keys, fetching them again once when the token
    /// names a key the cached set lacks (the provider rotated its keys).
    func verify(_ token: String, nonce: String) async throws(SignInFailure) -> IDTokenVerifier.Identity {
        var keys = try await keySet(refresh: false)
        for attempt in 0..<2 {
            var verifier = IDTokenVerifier(issuer: settings.issuer, clientID: settings.clientID, keys: keys)
            verifier.groupsClaim = settings.groupsClaim
            do {
                return try verifier.verify(token, nonce: nonce, now: clock.now)
            } catch .unknownKey where attempt == 0 {
                keys = try await keySet(refresh: true)
            } catch {
                throw SignInFailure(400, "The identity provider's answer was refused: \(error).")
            }
        }
        throw SignInFailure(400, "The identity provider's answer was refused: no key of the provider matches the ID token.")
    }

    /// The token endpoint's answer (RFC 6749 §5.1, §5.2).
    private struct TokenAnswer {
        let idToken: String?
        let error: String?

        init(_ response: HTTPResponse) {
            let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
            idToken = object["id_token"] as? String
            let code = object["error"] as? String
            error = (object["error_description"] as? String).map { "\(code ?? "error"): \($0)" } ?? code
        }
    }

    private func keySet(refresh: Bool) async throws(SignInFailure) -> JSONWebKeySet {
        let now = clock.now
        let cached = cache.withLock { cache -> JSONWebKeySet? in
            guard let keys = cache.keys else { return nil }
            guard refresh, cache.lastRefresh.map({ now.timeIntervalSince($0) >= Self.keysRefetchInterval }) ?? true else { return keys }
            cache.lastRefresh = now
            return nil
        }
        if let cached { return cached }
        let url = try await endpoints().jwksURI
        let body = try await get(url, what: "key set")
        let keys: JSONWebKeySet
        do {
            keys = try JSONWebKeySet(json: Array(body))
        } catch {
            throw SignInFailure(502, "The identity provider's key set at \(url) is not usable: \(error).")
        }
        cache.withLock { $0.keys = keys }
        return keys
    }

    private func get(_ url: String, what: String) async throws(SignInFailure) -> Data {
        let request = HTTPRequest(method: .get, url: url, headers: ["Accept": "application/json"],
                                  timeout: TimeInterval(settings.providerTimeoutSeconds))
        let response = try await send(request, what: what)
        guard response.status == 200 else {
            throw SignInFailure(502, "The identity provider's \(what) at \(url) answered HTTP \(response.status).")
        }
        return response.body
    }

    private func send(_ request: HTTPRequest, what: String) async throws(SignInFailure) -> HTTPResponse {
        do {
            return try await transport.send(request)
        } catch {
            throw SignInFailure(502, "The identity provider did not answer (\(what)): \(error).")
        }
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `application/x-www-form-urlencoded` for one value.
    static func formEncode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}
