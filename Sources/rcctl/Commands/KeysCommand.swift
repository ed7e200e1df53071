import ArgumentParser
import ConfigClient
import Foundation

/// `rcctl keys [--create NAME [--env ENV] | --revoke ID]`: the project's client API keys (admin).
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List the project's client API keys, make one (--create NAME), or revoke one (--revoke ID).",
        discussion: """
            A key serves one environment: what apps sending it fetch, stream and evaluate (docs/environments.md). \
            A new key is printed once; the server keeps only its hash. Keys of the config file (production's) are \
            not listed.
            """
    )

    @Option(help: "Make a key with this name.")
    var create: String?

    @Option(help: "Revoke the key with this id.")
    var revoke: String?

    @Option(name: .customLong("env"), help: "The environment a new key serves, or whose keys to list (env RCS_ENV, default production; all when listing).")
    var env: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if create != nil, revoke != nil { throw ValidationError("--create and --revoke do not go together") }
        if revoke != nil, env != nil { throw ValidationError("--env does not go with --revoke") }
    }

    func run() async throws {
        let client = global.adminClient()
        if let revoke {
            _ = try await checked { () async throws(ConfigClientError) in try await client.revokeAPIKey(revoke) }
            return Console.out("Revoked \(revoke)")
        }
        let environment = TemplateOptions.chosen(env)
        if let create {
            let response = try await checked { () async throws(ConfigClientError) in
                try await client.createAPIKey(name: create, environment: environment)
            }
            if global.json { return Console.write(response.body) }
            struct Made: Decodable { var id: String, key: String, environment: String }
            let made = try await checked { () async throws(ConfigClientError) in try response.decode(Made.self) }
            return Console.out("Key \(made.id) serving \(made.environment) (shown once):\n\(made.key)")
        }
        let response = try await checked { () async throws(ConfigClientError) in try await client.apiKeys() }
        if global.json { return Console.write(response.body) }
        struct List: Decodable {
            struct Key: Decodable { var id: String, name: String, createTime: String, environment: String }
            var apiKeys: [Key]
        }
        for key in try await checked({ () async throws(ConfigClientError) in try response.decode(List.self) }).apiKeys
        where environment == nil || key.environment == environment {
            Console.out("\(key.id)\t\(key.name)\t\(key.environment)\t\(key.createTime)")
        }
    }
}

/// `rcctl audit`: the audit log, newest first (an owner; a project's admin with --project).
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit log, newest first; --csv or --jsonl export it.",
        discussion: "Without --all-projects only the project's entries are shown (a project admin may read those)."
    )

    @Option(help: "Only this actor's entries (a principal's id, or token:<name>).")
    var actor: String?

    @Option(help: "Only entries of this action (template.publish, token.revoke, …).")
    var action: String?

    @Option(help: "Entries at or after this time (RFC 3339).")
    var since: String?

    @Option(help: "Entries before this time (RFC 3339).")
    var until: String?

    @Option(help: "At most this many entries (1-1000).")
    var limit = 100

    @Flag(help: "Every project's entries (an owner's token).")
    var allProjects = false

    @Flag(help: "Print CSV.")
    var csv = false

    @Flag(help: "Print JSON lines.")
    var jsonl = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        var query: [(String, String)] = [("pageSize", "\(limit)")]
        if !allProjects { query.append(("project", global.resolvedProject)) }
        for (name, value) in [("actor", actor), ("action", action), ("startTime", since), ("endTime", until)] {
            if let value { query.append((name, value)) }
        }
        if csv { query.append(("format", "csv")) } else if jsonl { query.append(("format", "jsonl")) }
        let client = global.adminClient()
        let response = try await checked { () async throws(ConfigClientError) in try await client.auditLog(query: query) }
        if global.json || csv || jsonl { return Console.write(response.body) }
        struct Page: Decodable {
            struct Entry: Decodable {
                struct Actor: Decodable { var id: String }
                var time: String, actor: Actor, action: String, project: String?, target: String?, versionNumber: String?, outcome: String
            }
            var entries: [Entry]
        }
        for entry in try await checked({ () async throws(ConfigClientError) in try response.decode(Page.self) }).entries {
            let what = [entry.project, entry.target, entry.versionNumber.map { "version \($0)" }].compactMap { $0 }.joined(separator: " ")
            Console.out("\(entry.time)\t\(entry.actor.id)\t\(entry.action)\t\(what)\t\(entry.outcome)")
        }
    }
}
