import ArgumentParser
import ConfigClient
import Foundation

/// `rcctl principals [add]`: people and service accounts (an owner's token; a project admin's adds service accounts).
struct PrincipalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "principals",
        abstract: "List people and service accounts, or add one with --add.",
        discussion: "A service account's id is made from its name (svc-…); a person is known by --email."
    )

    @Option(help: "Add a principal with this display name.")
    var add: String?

    @Option(help: "The new principal is a person with this email address (else a service account).")
    var email: String?

    @Flag(help: "The new principal owns the server.")
    var owner = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let client = global.adminClient()
        if let add {
            var fields = ["kind": email == nil ? "service" : "person", "displayName": add]
            fields["email"] = email
            if owner { fields["owner"] = "true" }
            let response = try await checked { () async throws(ConfigClientError) in try await client.createPrincipal(fields) }
            if global.json { return Console.write(response.body) }
            struct Principal: Decodable { var id: String }
            let principal = try await checked { () async throws(ConfigClientError) in try response.decode(Principal.self) }
            return Console.out("Added \(principal.id)")
        }
        let response = try await checked { () async throws(ConfigClientError) in try await client.principals() }
        if global.json { return Console.write(response.body) }
        struct List: Decodable {
            struct Principal: Decodable { var id: String, kind: String, displayName: String, owner: Bool }
            var principals: [Principal]
        }
        for principal in try await checked({ () async throws(ConfigClientError) in try response.decode(List.self) }).principals {
            Console.out("\(principal.id)\t\(principal.kind)\t\(principal.displayName)\(principal.owner ? "\towner" : "")")
        }
    }
}

/// `rcctl members [PRINCIPAL ROLE]`: roles on the project.
struct MembersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "members",
        abstract: "List each principal's role on the project, or set one: PRINCIPAL ROLE (viewer, editor, publisher, admin, or none).",
        discussion: "Needs the admin role on the project."
    )

    @Argument(help: "The principal to give a role.")
    var principal: String?

    @Argument(help: "viewer, editor, publisher, admin, or none to take the role away.")
    var role: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (principal == nil) == (role == nil) else { throw ValidationError("give both PRINCIPAL and ROLE, or neither") }
    }

    func run() async throws {
        let client = global.adminClient()
        if let principal, let role {
            let response = try await checked { () async throws(ConfigClientError) in
                try await client.setMember(principal, role: role == "none" ? nil : role)
            }
            if global.json { return Console.write(response.body) }
            return Console.out(role == "none" ? "\(principal) holds no role on the project" : "\(principal) is \(role)")
        }
        let response = try await checked { () async throws(ConfigClientError) in try await client.members() }
        if global.json { return Console.write(response.body) }
        struct List: Decodable {
            struct Member: Decodable { var principal: String, role: String }
            var members: [Member]
        }
        for member in try await checked({ () async throws(ConfigClientError) in try response.decode(List.self) }).members {
            Console.out("\(member.principal)\t\(member.role)")
        }
    }
}

/// `rcctl tokens [--create NAME --for PRINCIPAL | --revoke ID]` (an owner's token, or a project admin's with --role on its projects).
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "List tokens, make one (--create NAME --for PRINCIPAL), or revoke one (--revoke ID).",
        discussion: "A new token's secret is printed once; the server keeps only its hash."
    )

    @Option(help: "Make a token with this name.")
    var create: String?

    @Option(name: .customLong("for"), help: "The principal the new token acts for.")
    var principal: String?

    @Option(help: "When the new token stops working (RFC 3339).")
    var expires: String?

    @Option(name: .customLong("role"), help: "PROJECT=ROLE: the new token holds at most this role there (repeat; none elsewhere).")
    var roles: [String] = []

    @Option(help: "Revoke the token with this id.")
    var revoke: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if create != nil, principal == nil { throw ValidationError("--create needs --for PRINCIPAL") }
        if create != nil, revoke != nil { throw ValidationError("--create and --revoke do not go together") }
        if roles.contains(where: { $0.split(separator: "=").count != 2 }) { throw ValidationError("--role takes PROJECT=ROLE") }
    }

    func run() async throws {
        let client = global.adminClient()
        if let revoke {
            _ = try await checked { () async throws(ConfigClientError) in try await client.revokeToken(revoke) }
            return Console.out("Revoked \(revoke)")
        }
        let pairs = roles.map { $0.split(separator: "=").map(String.init) }
        let limits = roles.isEmpty ? nil : Dictionary(pairs.map { ($0[0], $0[1]) }) { _, last in last }
        if let create, let principal {
            let response = try await checked { () async throws(ConfigClientError) in
                try await client.createToken(principal: principal, name: create, expireTime: expires, roles: limits)
            }
            if global.json { return Console.write(response.body) }
            struct Made: Decodable { var id: String, token: String }
            let made = try await checked { () async throws(ConfigClientError) in try response.decode(Made.self) }
            return Console.out("Token \(made.id) for \(principal) (shown once):\n\(made.token)")
        }
        let response = try await checked { () async throws(ConfigClientError) in try await client.tokens() }
        if global.json { return Console.write(response.body) }
        struct List: Decodable {
            struct Token: Decodable { var id: String, principal: String, name: String, expireTime: String?, revokeTime: String? }
            var tokens: [Token]
        }
        for token in try await checked({ () async throws(ConfigClientError) in try response.decode(List.self) }).tokens {
            let state = token.revokeTime.map { "revoked \($0)" } ?? token.expireTime.map { "expires \($0)" } ?? "active"
            Console.out("\(token.id)\t\(token.principal)\t\(token.name)\t\(state)")
        }
    }
}

/// `rcctl sessions [--end ID]`: console sessions started through the identity provider.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List live console sessions (an owner: everyone's), or end one (--end ID) on every node.",
        discussion: "Ending someone's session takes away at once the roles their identity provider gave at sign-in."
    )

    @Option(help: "End the session with this id.")
    var end: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let client = global.adminClient()
        if let end {
            _ = try await checked { () async throws(ConfigClientError) in try await client.endSession(end) }
            return Console.out("Ended \(end)")
        }
        let response = try await checked { () async throws(ConfigClientError) in try await client.sessions() }
        if global.json { return Console.write(response.body) }
        struct List: Decodable {
            struct Session: Decodable { var id: String, principal: String, lastSeenTime: String, expireTime: String }
            var sessions: [Session]
        }
        for session in try await checked({ () async throws(ConfigClientError) in try response.decode(List.self) }).sessions {
            Console.out("\(session.id)\t\(session.principal)\tlast seen \(session.lastSeenTime)\tends \(session.expireTime)")
        }
    }
}
