import Foundation
import TestSupport
import Testing

/// `rcctl envs`, `--env`, `keys --env`, `compare` and `promote --from` end to end: the real binary
/// against the daemon (docs/environments.md).
@Suite(.timeLimit(.minutes(2))) final class RCCtlEnvironmentTests {
    let temporary: TemporaryDirectory
    let daemon: DaemonProcess

    init() throws {
        temporary = try TemporaryDirectory("rcctl-environments")
        daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("data").path, workers: 1)
    }

    func rcctl(_ arguments: String..., token: String? = RCCtlProcess.token, stdin: String? = nil,
               environment: [String: String] = [:]) throws -> RCCtlResult {
        try RCCtlProcess.run(arguments, port: daemon.port, token: token, stdin: stdin.map { Data($0.utf8) }, environment: environment)
    }

    /// Runs rcctl and expects it to succeed.
    @discardableResult
    func succeeds(_ arguments: String..., stdin: String? = nil) throws -> RCCtlResult {
        let result = try RCCtlProcess.run(arguments, port: daemon.port, stdin: stdin.map { Data($0.utf8) })
        #expect(result.status == 0, "rcctl \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    /// The parameter values a client app sending `apiKey` is served.
    func fetched(apiKey: String) throws -> [String: String] {
        let client = try TestClient(port: daemon.port)
        try client.send(TestClient.format("POST", "/v1/projects/123456789012/namespaces/firebase:fetch", headers: [("X-Goog-Api-Key", apiKey)],
                                          body: Array(#"{"appInstanceId":"i1","appId":"1:123456789012:ios:ab"}"#.utf8)))
        let response = try client.readResponse()
        #expect(response.status == 200, "\(response.text)")
        return try response.json()["entries"] as? [String: String] ?? [:]
    }

    /// A template of two parameters: `banner` shown to iOS only, and `limit`.
    static func template(banner: String, limit: String) -> String {
        """
        {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"}],
         "parameters": {"banner": {"defaultValue": {"value": "none"}, "conditionalValues": {"ios": {"value": "\(banner)"}}},
                        "limit": {"defaultValue": {"value": "\(limit)"}}}}
        """
    }

    @Test func environmentsAreCreatedListedRenamedGivenASoakAndDeleted() throws {
        #expect(try succeeds("envs", "create", "staging").stdout == "Created staging (Staging)\n")
        #expect(try succeeds("envs", "create", "development", "--name", "Dev").stdout == "Created development (Dev)\n")
        let listed = try succeeds("envs").stdout.split(separator: "\n")
        #expect(listed.first?.hasPrefix("ID           NAME        SOAK  CREATED") == true, "\(listed)")
        #expect(listed.dropFirst().map { $0.prefix { $0 != " " } } == ["staging", "development", "production"], "production last")
        #expect(try succeeds("envs", "rename", "staging", "Pre-production").stdout == "Renamed staging to Pre-production\n")
        #expect(try succeeds("envs", "soak", "production", "3600").stdout
            == "production takes only versions active for 3600 s where they come from\n")
        let json = try succeeds("envs", "list", "--json").json()
        let environments = try #require(json["environments"] as? [[String: Any]])
        #expect(environments.map { $0["displayName"] as? String } == ["Pre-production", "Dev", "Production"])
        #expect(environments.last?["soakSeconds"] as? Int == 3600)

        #expect(try succeeds("envs", "delete", "development").stdout == "Deleted development\n")
        #expect(try succeeds("envs").stdout.split(separator: "\n").count == 3)
        let again = try rcctl("envs", "create", "staging")
        #expect(again.status == 1 && again.stderr.contains("ALREADY_EXISTS"), "\(again.stderr)")
        let production = try rcctl("envs", "delete", "production")
        #expect(production.status == 1 && production.stderr.contains("ENVIRONMENT_IN_USE"), "\(production.stderr)")
        #expect(try rcctl("envs", "create", "Not An Id").status == 1)
        #expect(try rcctl("envs", "soak", "staging", "-1").status == 2)
    }

    @Test func aTemplatePublishedWithEnvIsWhatThatEnvironmentsKeysFetch() throws {
        try succeeds("envs", "create", "staging")
        let made = try succeeds("keys", "--create", "ios-staging", "--env", "staging")
        let lines = made.stdout.split(separator: "\n")
        #expect(lines.first?.hasSuffix(" serving staging (shown once):") == true, "\(made.stdout)")
        let stagingKey = String(try #require(lines.last))
        let id = String(made.stdout.dropFirst(4).prefix(12))

        let staged = try succeeds("publish", "-", "--env", "staging", stdin: Templates.single("stage"))
        #expect(staged.stdout == "Published version 1 to staging (ETag etag-123456789012-1)\n")
        #expect(try succeeds("publish", "-", stdin: Templates.single("prod")).stdout == "Published version 1 (ETag etag-123456789012-1)\n")
        #expect(try fetched(apiKey: stagingKey) == ["key": "stage"])
        #expect(try fetched(apiKey: "example-api-key") == ["key": "prod"], "the config file's key serves production")

        // RCS_ENV chooses the environment as --env does; --env wins over it.
        let staging = ["RCS_ENV": "staging"]
        #expect(try rcctl("get", environment: staging).stdout.contains("key (STRING) = \"stage\""))
        #expect(try rcctl("get", "--env", "production", environment: staging).stdout.contains("key (STRING) = \"prod\""))
        #expect(try rcctl("publish", "-", "--force", stdin: Templates.single("stage 2"), environment: staging).status == 0)
        #expect(try fetched(apiKey: stagingKey) == ["key": "stage 2"])
        #expect(try succeeds("versions", "--env", "staging").stdout.split(separator: "\n").count == 3)
        #expect(try succeeds("versions").stdout.split(separator: "\n").count == 2, "production's versions are its own")
        #expect(try succeeds("rollback", "1", "--env", "staging").status == 0)
        #expect(try fetched(apiKey: stagingKey) == ["key": "stage"])

        try succeeds("keys", "--create", "android")
        let keys = try succeeds("keys").stdout
        #expect(keys.contains("\(id)\tios-staging\tstaging\t") && keys.contains("\tandroid\tproduction\t"), "\(keys)")
        #expect(try succeeds("keys", "--env", "staging").stdout.split(separator: "\n").count == 1)
        let unknown = try rcctl("get", "--env", "qa")
        #expect(unknown.status == 1 && unknown.stderr.contains("404"), "\(unknown.stderr)")
        #expect(try rcctl("keys", "--create", "x", "--env", "qa").status == 1)
    }

    @Test func compareExitsOneOnlyWithExitCodeAndWhenTheTemplatesDiffer() throws {
        try succeeds("envs", "create", "staging")
        try succeeds("publish", "-", stdin: Self.template(banner: "old", limit: "10"))
        try succeeds("publish", "-", "--env", "staging", stdin: Self.template(banner: "old", limit: "10"))
        let same = try succeeds("compare", "--env", "staging", "--with", "production", "--exit-code")
        #expect(same.stdout == "No differences between production version 1 and staging version 1\n")

        try succeeds("publish", "-", "--env", "staging", "--force", stdin: Self.template(banner: "new", limit: "10"))
        let differs = try succeeds("compare", "--env", "staging", "--with", "production")
        let lines = differs.stdout.split(separator: "\n").map(String.init)
        #expect(lines == [
            "From production version 1 to staging version 2:",
            "changedParameters[0].conditionalValues.changed[0]: ios",
            "changedParameters[0].conditionalValues.values.ios.from.value: old",
            "changedParameters[0].conditionalValues.values.ios.to.value: new",
            "changedParameters[0].key: banner",
        ], "\(differs.stdout)")
        let failing = try rcctl("compare", "--env", "staging", "--with", "production", "--exit-code")
        #expect(failing.status == 1 && failing.stdout == differs.stdout)
        #expect(failing.stderr == "rcctl: staging differs from production\n")
        let json = try succeeds("compare", "--with", "staging", "--json").json()
        #expect(json["environment"] as? String == "production" && json["with"] as? String == "staging")

        let unknown = try rcctl("compare", "--env", "staging", "--with", "qa", "--exit-code")
        #expect(unknown.status == 1 && unknown.stderr.contains("has no environment 'qa'"), "\(unknown.stderr)")
        #expect(try rcctl("compare", "--env", "staging").status == 2, "--with is required")
    }

    @Test func promoteTheWholeTemplateOrChosenKeysAndRefusals() throws {
        try succeeds("envs", "create", "staging")
        try succeeds("publish", "-", stdin: Self.template(banner: "old", limit: "10"))
        try succeeds("publish", "-", "--env", "staging", stdin: Self.template(banner: "new", limit: "20"))

        let chosen = try succeeds("promote", "--from", "staging", "--to", "production", "--keys", "limit")
        #expect(chosen.stdout == "Promoted staging version 1 to production: version 2 (ETag etag-123456789012-2)\n")
        let production = try succeeds("get").stdout
        #expect(production.contains("limit (STRING) = \"20\"") && production.contains("if ios: \"old\""), "\(production)")
        #expect(try succeeds("compare", "--with", "staging").stdout.contains("changedParameters[0].key: banner"))

        let whole = try succeeds("promote", "--from", "staging", "--to", "production", "--description", "release 7", "--etag",
                                 "etag-123456789012-2")
        #expect(whole.stdout == "Promoted staging version 1 to production: version 3 (ETag etag-123456789012-3)\n")
        #expect(try rcctl("compare", "--with", "staging", "--exit-code").status == 0)
        let versions = try succeeds("versions").stdout.split(separator: "\n")
        #expect(versions[1].contains("PROMOTED from staging 1") && versions[1].hasSuffix("release 7"), "\(versions)")
        #expect(versions[2].contains("PROMOTED from staging 1") && versions[2].hasSuffix("Promoted from staging version 1"))

        // Run again with the same --etag (a CI job retried): refused, not promoted twice.
        let repeated = try rcctl("promote", "--from", "staging", "--to", "production", "--etag", "etag-123456789012-2")
        #expect(repeated.status == 1 && repeated.stderr.contains("[VERSION_MISMATCH]"), "\(repeated.stderr)")
        try succeeds("envs", "soak", "production", "3600")
        let unsoaked = try rcctl("promote", "--from", "staging", "--to", "production")
        #expect(unsoaked.status == 1 && unsoaked.stderr.contains("[SOAK_NOT_MET]"), "\(unsoaked.stderr)")
        #expect(unsoaked.stdout.isEmpty)
        try succeeds("envs", "soak", "production", "0")

        // An editor proposes; promoting straight into a template needs a publisher.
        try succeeds("principals", "--add", "Author")
        try succeeds("members", "svc-author", "editor")
        let editor = try #require(try succeeds("tokens", "--create", "ci", "--for", "svc-author", "--json").json()["token"] as? String)
        let refused = try rcctl("promote", "--from", "staging", "--to", "production", token: editor)
        #expect(refused.status == 1 && refused.stderr.contains("needs the role 'publisher'"), "\(refused.stderr)")
        #expect(try succeeds("versions").stdout.split(separator: "\n").count == 4, "nothing was promoted by the refusals")

        // Without --from, promote is the canary's step: of the canary of --env's template.
        try succeeds("publish", "-", "--env", "staging", "--canary", "10", stdin: Self.template(banner: "canary", limit: "20"))
        #expect(try succeeds("promote", "--env", "staging").stdout
            == "Promoted the canary: version 3 is served to every instance (ETag etag-123456789012-3)\n")
        #expect(try succeeds("versions").stdout.split(separator: "\n").count == 4, "production's template is not the canary's")

        #expect(try rcctl("promote", "--to", "production").status == 2, "--to without --from")
        #expect(try rcctl("promote", "--from", "staging").status == 2, "--from without --to")
        #expect(try rcctl("promote", "--from", "staging", "--to", "production", "--keys", ",").status == 2)
    }

    @Test func promotingIntoATemplateThatNeedsApprovalMakesAChangeRequest() throws {
        try succeeds("envs", "create", "staging")
        try succeeds("publish", "-", stdin: Self.template(banner: "prod", limit: "10"))
        try succeeds("publish", "-", "--env", "staging", stdin: Self.template(banner: "stage", limit: "10"))
        try succeeds("changes", "policy", "--approvals", "1", "--self-approval", "--env", "staging")

        let proposed = try succeeds("promote", "--from", "production", "--to", "staging", "--keys", "banner")
        #expect(proposed.stdout == "Promoting production version 1 into staging needs approval: change request #1, 0 of 1 approvals "
            + "(rcctl changes show 1 --env staging)\n")
        #expect(try succeeds("get", "--env", "staging").stdout.hasPrefix("Version 1 "), "nothing published yet")
        #expect(try succeeds("changes", "list", "--env", "staging").stdout.hasPrefix("#1\topen\t0/1 approvals"))
        #expect(try succeeds("changes", "list").stdout == "No change requests.\n", "production's requests are its own")

        try succeeds("changes", "approve", "1", "--env", "staging")
        #expect(try succeeds("changes", "apply", "1", "--env", "staging").stdout == "Applied change request #1: version 2\n")
        #expect(try succeeds("versions", "--env", "staging").stdout.split(separator: "\n")[1].contains("PROMOTED from production 1"))
        #expect(try succeeds("get", "--env", "staging").stdout.contains("if ios: \"prod\""))
    }
}
