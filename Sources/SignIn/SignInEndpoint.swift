package import ConfigCore
package import ConfigStore
import Dispatch
import EventLoop
import Foundation
import HTTP1
package import ServerCore

/// Signing in to the console with the team's OpenID Connect provider: the authorization code
/// flow with PKCE, `state` and `nonce` (docs/access.md, "Sign-in"). A step that calls the
/// provider runs in one task (``answerInTask(_:_:)``, the provider client being async) and hands
/// its store calls to the requests lane: no step blocks an event loop.
package struct SignInEndpoint: Sendable {
    /// Nil when `signIn.issuer` is not set: only the pasted token signs in.
    let provider: OIDCProvider?
    let sessions: ConsoleSessions
    let store: any SignInStore
    let access: AccessControl
    let storeQueue: StoreQueue
    let clock: any WallClock
    /// Keeps sign-ins, failed ones and sign-outs (this endpoint knows who).
    let audit: AuditTrail

    package init(provider: OIDCProvider?, sessions: ConsoleSessions, store: any SignInStore, access: AccessControl,
                 storeQueue: StoreQueue, clock: any WallClock, audit: AuditTrail) {
        self.provider = provider
        self.sessions = sessions
        self.store = store
        self.access = access
        self.storeQueue = storeQueue
        self.clock = clock
        self.audit = audit
    }

    /// What one sign-in keeps in the store between leaving for the provider and coming back.
    private struct Attempt: Codable {
        let nonce: String
        let verifier: String
        let redirectURI: String
        let returnTo: String
    }

    /// How long a person may take at the provider.
    private static let attemptLifetime: TimeInterval = 600
    /// Sign-ins under way at once, across the cluster: anyone may start one, so the store's
    /// table is bounded (a team signs in far fewer times in ten minutes).
    private static let maxPendingAttempts = 10_000

    /// The identity provider, for its steps; 404 where none is configured.
    func requireProvider() throws -> OIDCProvider {
        guard let provider else { throw APIError.notFound("Sign-in with an identity provider is not configured (signIn.issuer).") }
        return provider
    }

    /// `GET /auth/session`: whether sign-in with the provider is offered, and who is signed in
    /// with the request's cookie, with the CSRF token their calls carry.
    func describe(_ exchange: Exchange) {
        struct Answer: Encodable {
            struct Provider: Encodable {
                let name: String
                let loginURL: String
            }
            struct Session: Encodable {
                let principal: String
                let name: String
                let csrfToken: String
                let expireTime: Timestamp
            }
            let provider: Provider?
            let session: Session?
        }
        let secret = ConsoleSession.secret(in: exchange.request.head.headers)
        let session = secret.flatMap { secret in
            access.admin(session: secret).map { found in
                Answer.Session(principal: found.identity.id, name: found.identity.name,
                               csrfToken: ConsoleSession.csrfToken(forSecret: secret), expireTime: found.session.expireTime)
            }
        }
        let answer = Answer(provider: provider.map { Answer.Provider(name: $0.settings.providerName, loginURL: "/auth/oidc/login") },
                            session: session)
        var headers = HTTPHeaders([("Cache-Control", "no-store")])
        // A cookie of an ended session is dropped.
        if secret != nil, session == nil { headers.add(name: "Set-Cookie", value: cookie(nil, exchange)) }
        exchange.respond(.json(Array(TemplateJSON.encode(answer)), headers: headers))
    }

    /// `GET /auth/oidc/login[?returnTo=/console/…]`: keeps a new attempt, then sends the browser
    /// to the provider's authorization endpoint.
    func login(_ exchange: Exchange, _ provider: OIDCProvider) {
        let returnTo = Self.consolePath(exchange.uri["returnTo"])
        let redirectURI = redirectURI(exchange, provider.settings)
        answerInTask(exchange) { _ in
            let endpoints = try await provider.endpoints()
            let state = RandomSecret.hex(bytes: 32)
            let attempt = Attempt(nonce: RandomSecret.hex(bytes: 16), verifier: RandomSecret.hex(bytes: 32),
                                  redirectURI: redirectURI, returnTo: returnTo)
            let kept = try await onRequestsLane {
                try store.putAttempt(stateHash: SecretDigest(secret: state).hex, record: Array(TemplateJSON.encode(attempt)),
                                     expireTime: clock.now.addingTimeInterval(Self.attemptLifetime),
                                     maxPending: Self.maxPendingAttempts)
            }
            guard kept else {
                throw SignInFailure(503, "Too many sign-ins are under way: try again in a few minutes.")
            }
            guard var location = URLComponents(string: endpoints.authorizationEndpoint) else {
                throw SignInFailure(502, "The identity provider's authorization_endpoint is not a URL.")
            }
            location.queryItems = (location.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "client_id", value: provider.settings.clientID),
                URLQueryItem(name: "redirect_uri", value: redirectURI),
                URLQueryItem(name: "scope", value: provider.settings.scopes.joined(separator: " ")),
                URLQueryItem(name: "state", value: state),
                URLQueryItem(name: "nonce", value: attempt.nonce),
                URLQueryItem(name: "code_challenge", value: Base64URL.encode(SecretDigest(secret: attempt.verifier).bytes)),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
            return Self.redirect(to: location.string ?? "/console/")
        }
    }

    /// `GET /auth/oidc/callback?code=…&state=…`: takes the attempt (once), redeems the code,
    /// checks the ID token, and starts a session.
    func callback(_ exchange: Exchange, _ provider: OIDCProvider) throws {
        let uri = exchange.uri
        guard let state = uri["state"], !state.isEmpty else {
            throw APIError.badRequest("The sign-in answer has no 'state': start again from the console.")
        }
        let code = uri["code"]
        let providerError = uri["error"].map { error in uri["error_description"].map { "\(error): \($0)" } ?? error }
        answerInTask(exchange) { who in
            let record = try await onRequestsLane { try store.takeAttempt(stateHash: SecretDigest(secret: state).hex) }
            guard let record, let attempt = try? JSONDecoder().decode(Attempt.self, from: Data(record)) else {
                throw SignInFailure(400, "This sign-in answer was already used, is older than ten minutes, or was not "
                    + "started here: sign in again.")
            }
            if let providerError { throw SignInFailure(403, "The identity provider did not sign you in (\(providerError)).") }
            guard let code, !code.isEmpty else { throw SignInFailure(400, "The sign-in answer has no 'code'.") }
            let token = try await provider.idToken(code: code, verifier: attempt.verifier, redirectURI: attempt.redirectURI)
            let person = try await provider.verify(token, nonce: attempt.nonce)
            who = person.email ?? person.subject
            guard let email = person.email?.lowercased(), UpdateUserEmail.isPersonAddress(email) else {
                throw SignInFailure(403, "The identity provider gave no usable email address: ask for the 'email' scope.")
            }
            guard person.emailVerified != false else {
                throw SignInFailure(403, "The identity provider says \(email) is not verified.")
            }
            let secret = try await onRequestsLane { [access, audit] in
                let (secret, session) = try sessions.start(email: email, name: person.name, groups: person.groups)
                let name = access.storedAccess.principals[email]?.updateUser ?? email
                // Kept before the answer, as every audited call is.
                audit.signIn(exchange, action: "session.signIn", actor: (email, name), target: session.id, outcome: "ok")
                return secret
            }
            var response = Self.redirect(to: attempt.returnTo)
            response.headers.add(name: "Set-Cookie", value: cookie(secret, exchange))
            return response
        }
    }

    /// `POST /auth/signOut`: ends the cookie's session on every worker and node (with its CSRF
    /// token), and drops the cookie. Without a live session there is nothing to end.
    func signOut(_ exchange: Exchange) throws {
        let headers = exchange.request.head.headers
        let response = HTTPResponse(status: 204, headers: HTTPHeaders([
            ("Set-Cookie", cookie(nil, exchange)), ("Cache-Control", "no-store"),
        ]))
        guard let secret = ConsoleSession.secret(in: headers), let (session, identity) = access.admin(session: secret) else {
            return exchange.respond(response)
        }
        guard let presented = headers["X-CSRF-Token"],
              AccessControl.constantTimeEqual(presented, ConsoleSession.csrfToken(forSecret: secret)) else {
            throw APIError(403, "Signing out needs the session's X-CSRF-Token.")
        }
        exchange.answerFromStore { [sessions, audit] in
            _ = try sessions.end(id: session.id)
            audit.signIn(exchange, action: "session.signOut", actor: (identity.id, identity.name),
                                         target: session.id, outcome: "ok")
            return response
        }
    }

    /// `GET /v1/sessions`: the live console sessions (an owner's: everyone's; else one's own),
    /// never their secrets, as the store has them.
    func listSessions(_ exchange: Exchange, visibleTo identity: AccessControl.AdminIdentity) {
        struct Listed: Encodable {
            let id: String
            let principal: String
            let createTime: Timestamp
            let lastSeenTime: Timestamp
            let expireTime: Timestamp
        }
        exchange.answerFromStore { [sessions, access] in
            let now = access.clock.now
            let listed = try sessions.all()
                .filter { (identity.isOwner || $0.principal == identity.id) && $0.isUsable(at: now, idle: access.sessionIdle) }
                .sorted { $0.createTime < $1.createTime }
                .map { Listed(id: $0.id, principal: $0.principal, createTime: $0.createTime, lastSeenTime: $0.lastSeenTime,
                              expireTime: $0.expireTime) }
            return .json(Array(TemplateJSON.encode(["sessions": listed])))
        }
    }

    /// `DELETE /v1/sessions/{id}`: ends a session on every worker and node before answering (an
    /// owner, any; else one's own).
    func endSession(_ exchange: Exchange, id: String, by identity: AccessControl.AdminIdentity) {
        exchange.answerFromStore { [sessions] in
            guard let session = try sessions.read(id), identity.isOwner || session.principal == identity.id else {
                throw APIError.notFound("No session '\(id)' that you may end.")
            }
            _ = try sessions.end(id: session.id)
            return HTTPResponse(status: 204)
        }
    }

    /// Answers a failed sign-in with a page that says why (the person is in a browser), once
    /// it is in the audit log (store queue).
    private func refuse(_ exchange: Exchange, _ error: any Error, who: String?) {
        let failure = (error as? SignInFailure)
            ?? (error as? StoreError).map { _ in SignInFailure(503, "The server cannot reach its store: try again shortly.") }
            ?? SignInFailure(500, "Sign-in failed: \(error).")
        storeQueue.async { [audit] in
            audit.signIn(exchange, action: "session.signIn", actor: (who ?? "unknown", who ?? "unknown"),
                                         target: nil, outcome: "failed \(failure.status): \(failure.message)")
            exchange.respond(SignInPage.failure(failure))
        }
    }

    /// Where the provider sends the person back: `signIn.publicURL`, else this request's origin.
    private func redirectURI(_ exchange: Exchange, _ settings: SignInSettings) -> String {
        if !settings.publicURL.isEmpty { return settings.publicURL + "/auth/oidc/callback" }
        let host = exchange.request.head.headers["Host"] ?? "localhost"
        return (isTLS(exchange) ? "https://" : "http://") + host + "/auth/oidc/callback"
    }

    /// Whether the browser came over TLS: a trusted proxy says so in `X-Forwarded-Proto`.
    private func isTLS(_ exchange: Exchange) -> Bool {
        exchange.context.peerIsTrustedProxy && exchange.request.head.headers["X-Forwarded-Proto"]?.lowercased() == "https"
    }

    private func cookie(_ secret: String?, _ exchange: Exchange) -> String {
        ConsoleSession.cookie(secret, maxAge: sessions.maxAgeSeconds, secure: isTLS(exchange))
    }

    /// A path in the console to return to; anything else (another site, `//host`) is the console.
    static func consolePath(_ requested: String?) -> String {
        guard let requested, requested.hasPrefix("/console"), !requested.hasPrefix("//"), !requested.contains("\\"),
              requested.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return "/console/" }
        return requested
    }

    private static func redirect(to location: String) -> HTTPResponse {
        HTTPResponse(status: 302, headers: HTTPHeaders([("Location", location), ("Cache-Control", "no-store")]))
    }

    // Sign-in's one bridge to Swift concurrency (docs/server-layout.md, "Background work"):
    // `OIDCProvider` is async, as OutboundHTTP's transport is, so a step that calls the provider
    // runs as one task, started by `answerInTask`; its store calls still run on the requests lane,
    // awaited through `onRequestsLane`, and its answer leaves through the exchange.

    /// Runs a sign-in step that calls the identity provider in a task, and answers `exchange`
    /// with what it returns, or with the failure page for what it throws, kept in the audit log
    /// with whom the step found signing in (what it set `who` to).
    private func answerInTask(_ exchange: Exchange,
                              _ step: @escaping @Sendable (_ who: inout String?) async throws -> HTTPResponse) {
        Task {
            var who: String?
            do {
                exchange.respond(try await step(&who))
            } catch {
                refuse(exchange, error, who: who)
            }
        }
    }

    /// Runs blocking store work on the requests lane (`StoreQueue`, bounded by its deadline) and
    /// returns its result to the step that awaits it.
    private func onRequestsLane<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            storeQueue.async { continuation.resume(with: Swift.Result { try work() }) }
        }
    }
}
