@testable import ServerCore
@testable import SignIn
import ConfigCore
import ConfigStore
import Foundation
import HTTP1
import Synchronization
import Testing

/// Sign-in's pieces without a provider: sessions as access records, the roles an ID token's
/// claims give, the cookie, PKCE, and the provider client against a scripted transport. The
/// whole flow against real providers is scripts/oidc-e2e.
@Suite struct SignInTests {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    /// Access records for Ada, and her session as this worker last read it, on `clock`.
    func access(owner: Bool = false, claimRoles: [String: String] = [:], memberOf: [String: String] = [:],
                secret: String, clock: ManualClock = ManualClock(start)) -> AccessControl {
        let encoder = JSONEncoder()
        var records = [
            StoredAccessRecord(kind: .principal, id: "ada@example.com", record: Array(try! encoder.encode(Principal(
                id: "ada@example.com", kind: .person, displayName: "Ada", email: "ada@example.com", owner: owner,
                createTime: Timestamp(Self.start)))), updateTime: Self.start),
        ]
        for (project, role) in memberOf {
            let membership = Membership(principal: "ada@example.com", project: project, role: role)
            records.append(StoredAccessRecord(kind: .membership, id: membership.recordID,
                                              record: Array(try! encoder.encode(membership)), updateTime: Self.start))
        }
        let session = ConsoleSession(
            id: ConsoleSession.id(inSecret: secret)!, principal: "ada@example.com", sha256: SecretDigest(secret: secret).hex,
            createTime: Timestamp(Self.start), lastSeenTime: Timestamp(Self.start),
            expireTime: Timestamp(Self.start.addingTimeInterval(86_400)), claimRoles: claimRoles, claimOwner: false)
        let access = AccessControl(adminTokens: [], sessionIdle: 3_600, clock: clock)
        access.setStoredAccess(StoredAccess(records))
        access.sessions.keep(session.id, session, accessCounter: 0, readTime: Self.start)
        return access
    }

    @Test func aSessionActsForItsPersonUntilIdleOrExpired() throws {
        let (_, secret) = ConsoleSession.mint()
        let clock = ManualClock(Self.start)
        let access = access(memberOf: ["p1": "viewer"], secret: secret, clock: clock)
        #expect(access.admin(session: secret + "0") == nil, "another secret with the same id")
        var forged = secret
        forged.removeLast()
        #expect(access.admin(session: forged + (secret.last == "a" ? "b" : "a")) == nil)
        clock.advance(by: 60)
        let (_, identity) = try #require(access.admin(session: secret))
        #expect(identity.id == "ada@example.com" && identity.sessionID == ConsoleSession.id(inSecret: secret))
        #expect(identity.role(on: "p1") == .viewer && identity.role(on: "p2") == nil)
        clock.set(Self.start.addingTimeInterval(3_601))
        #expect(access.admin(session: secret) == nil, "idle for longer than allowed")
        #expect(access.admin(bearer: secret) == nil, "a session secret is not a bearer token")
    }

    @Test func claimRolesRaiseMembershipsAndAStarHoldsOnEveryProject() throws {
        let (_, secret) = ConsoleSession.mint()
        let access = access(claimRoles: ["*": "viewer", "p1": "publisher"], memberOf: ["p1": "editor", "p2": "admin"],
                            secret: secret)
        let identity = try #require(access.admin(session: secret)?.identity)
        #expect(identity.role(on: "p1") == .publisher)
        #expect(identity.role(on: "p2") == .admin)
        #expect(identity.role(on: "anything") == .viewer)
        #expect(!identity.isOwner)
    }

    @Test func roleMappingsMatchEmailDomainsAndGroups() {
        var settings = SignInSettings()
        settings.roleMappings = [
            ClaimRoleMapping(emailDomain: "Example.com", roles: ["*": "viewer"]),
            ClaimRoleMapping(group: "release", roles: ["p1": "publisher", "p2": "editor"]),
            ClaimRoleMapping(group: "platform", owner: true),
        ]
        #expect(settings.mappedRoles(email: "ada@EXAMPLE.com", groups: []) == (["*": "viewer"], false))
        #expect(settings.mappedRoles(email: "ada@example.org", groups: ["release"]) == (["p1": "publisher", "p2": "editor"], false))
        #expect(settings.mappedRoles(email: "ada@example.org", groups: ["platform"]).owner)
        #expect(settings.mappedRoles(email: "ada@badexample.com", groups: ["releases"]) == ([:], false))
    }
}

@Suite struct SignInPiecesTests {
    @Test func theSessionCookieIsFoundAmongOthersAndSetSafely() {
        let headers = HTTPHeaders([("Cookie", "theme=dark; rcs_session=rcs_ses_0123456789abcdef_xyz ; other=1")])
        #expect(ConsoleSession.secret(in: headers) == "rcs_ses_0123456789abcdef_xyz")
        #expect(ConsoleSession.secret(in: HTTPHeaders([("Cookie", "rcs_sessionx=1")])) == nil)
        #expect(ConsoleSession.id(inSecret: "rcs_ses_0123456789abcdef_xyz") == "0123456789abcdef")
        #expect(ConsoleSession.id(inSecret: "rcs_pat_0123456789ab_xyz") == nil)
        let cookie = ConsoleSession.cookie("s", maxAge: 60, secure: true)
        #expect(cookie == "rcs_session=s; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure")
        #expect(ConsoleSession.cookie(nil, maxAge: 60, secure: false) == "rcs_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0")
        #expect(ConsoleSession.csrfToken(forSecret: "a") != ConsoleSession.csrfToken(forSecret: "b"))
    }

    @Test func thePKCEChallengeIsRFC7636s() {
        // RFC 7636 Appendix B.
        let challenge = Base64URL.encode(SecretDigest(secret: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").bytes)
        #expect(challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func onlyAConsolePathIsReturnedTo() {
        #expect(SignInEndpoint.consolePath("/console/#history") == "/console/#history")
        for hostile in [nil, "https://evil.example", "//evil.example/console", "/console\\@evil", "/v1/projects", "/console/\u{0}"] {
            #expect(SignInEndpoint.consolePath(hostile) == "/console/", "\(String(describing: hostile))")
        }
    }

    @Test func settingsAreCheckedWhenSignInIsOn() throws {
        var settings = SignInSettings()
        try settings.validate()
        settings.issuer = "https://idp.example.com"
        #expect(throws: ConfigurationError.self) { try settings.validate() }
        settings.clientID = "rcs"
        try settings.validate()
        for broken in [
            { (s: inout SignInSettings) in s.issuer = "idp.example.com" },
            { $0.publicURL = "https://config.example.com/" },
            { $0.scopes = ["email"] },
            { $0.roleMappings = [ClaimRoleMapping(emailDomain: "a.com", group: "g", roles: ["p": "viewer"])] },
            { $0.roleMappings = [ClaimRoleMapping(group: "g", roles: ["p": "owner"])] },
            { $0.roleMappings = [ClaimRoleMapping(group: "g")] },
        ] {
            var copy = settings
            broken(&copy)
            #expect(throws: ConfigurationError.self) { try copy.validate() }
        }
    }
}
