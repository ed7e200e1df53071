import Foundation
import TestSupport
import Testing

/// `rcctl` end to end: the real binary against the real daemon (config/remote-config.json:
/// project example-project, number 123456789012, token dev-admin-token).
// Three minutes: its async tests share the two cooperative threads with the blocking daemon tests.
@Suite(.timeLimit(.minutes(3))) final class RCCtlTests {
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }
    let daemon: DaemonProcess

    init() throws {
        temporary = try TemporaryDirectory("rcctl")
        daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("data").path, workers: 1)
    }

    func rcctl(_ arguments: String..., token: String? = RCCtlProcess.token, stdin: String? = nil) throws -> RCCtlResult {
        try RCCtlProcess.run(arguments, port: daemon.port, token: token, stdin: stdin.map { Data($0.utf8) })
    }

    /// Writes `text` to a file in the test directory and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// A template with one condition and one parameter whose default is `welcome`.
    func template(_ welcome: String) throws -> String {
        try file("template-\(welcome).json", """
            {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"}],
             "parameters": {"welcome": {"defaultValue": {"value": "\(welcome)"},
                                        "conditionalValues": {"ios": {"value": "\(welcome) ios"}}}}}
            """)
    }

    @discardableResult
    func publish(_ welcome: String) throws -> RCCtlResult {
        let result = try rcctl("publish", try template(welcome), "--force")
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    @Test func publishChecksTheETagUnlessForced() throws {
        let first = try rcctl("publish", try template("one"))
        #expect(first.status == 0)
        #expect(first.stdout == "Published version 1 (ETag etag-123456789012-1)\n")

        // An ETag from before version 1: refused, and the message says why and what to do.
        let stale = try rcctl("publish", try template("two"), "--etag", "etag-123456789012-0")
        #expect(stale.status == 1)
        #expect(stale.stderr.contains("FAILED_PRECONDITION"))
        #expect(stale.stderr.contains("[VERSION_MISMATCH]: Expected version 0, found 1"))
        #expect(stale.stderr.contains("--force"))
        #expect(stale.stdout.isEmpty)

        let malformed = try rcctl("publish", try template("two"), "--etag", "wrong")
        #expect(malformed.status == 1)
        #expect(malformed.stderr.contains("If-Match 'wrong' is not a template ETag"))

        let current = try rcctl("publish", try template("two"), "--etag", "etag-123456789012-1")
        #expect(current.stdout == "Published version 2 (ETag etag-123456789012-2)\n")
        let forced = try rcctl("publish", try template("three"), "--force")
        #expect(forced.stdout == "Published version 3 (ETag etag-123456789012-3)\n")

        let validated = try rcctl("publish", try template("four"), "--validate-only")
        #expect(validated.status == 0)
        #expect(validated.stdout == "Template is valid (nothing published)\n")
        let invalid = try rcctl("publish", try file("bad.json", #"{"conditions": [{"name": "x", "expression": "device.os =="}]}"#), "--validate-only")
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("condition 'x' does not parse"))
        let get = try rcctl("get")
        #expect(get.stdout.hasPrefix("Version 3 "), "validate-only published nothing")
        #expect(get.stdout.contains("welcome (STRING) = \"three\""))
    }

    @Test func publishRefusesBadArgumentsAndFilesWithExitCode2() throws {
        let both = try rcctl("publish", try template("x"), "--etag", "etag-123456789012-0", "--force")
        #expect(both.status == 2)
        #expect(both.stderr.contains("--etag and --force exclude each other"))
        let missing = try rcctl("publish", directory.appendingPathComponent("missing.json").path)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot read"))
        let notObject = try rcctl("publish", "-", stdin: "[1, 2]")
        #expect(notObject.status == 2)
        #expect(notObject.stderr == "rcctl: standard input must hold a JSON object\n")
        #expect(try rcctl("versions").stdout == "No versions\n")
    }

    @Test func getShowsTheCurrentOrAnOlderVersion() throws {
        try publish("one")
        try publish("two")
        let current = try rcctl("get")
        #expect(current.status == 0)
        let lines = current.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Version 2  ") == true)
        #expect(lines.contains("ETag etag-123456789012-2"))
        #expect(lines.contains("  ios: device.os == 'ios'"))
        #expect(lines.contains("  welcome (STRING) = \"two\""))
        #expect(lines.contains("    if ios: \"two ios\""))

        let path = directory.appendingPathComponent("v1.json").path
        let older = try rcctl("get", "--version", "1", "-o", path)
        #expect(older.stdout == "Wrote version 1 to \(path) (ETag etag-123456789012-1)\n")
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let welcome = (saved["parameters"] as? [String: Any])?["welcome"] as? [String: Any]
        #expect((welcome?["defaultValue"] as? [String: Any])?["value"] as? String == "one")
        #expect((saved["version"] as? [String: Any])?["versionNumber"] as? String == "1")

        let absent = try rcctl("get", "--version", "99")
        #expect(absent.status == 1)
        #expect(absent.stderr.contains("Version 99 of project 'example-project' not found"))
        let zero = try rcctl("get", "--version", "0")
        #expect(zero.status == 2)
        // `export` takes the same option with the same check.
        let exportZero = try rcctl("export", "--version", "0")
        #expect(exportZero.status == 2)
        #expect(exportZero.stderr.contains("--version must be a positive version number"))
    }

    @Test func versionsRollbackAndDiff() throws {
        try publish("one")
        try publish("two")
        let rollback = try rcctl("rollback", "1")
        #expect(rollback.status == 0)
        #expect(rollback.stdout == "Rolled back to version 1; current version is now 3 (ETag etag-123456789012-3)\n")

        let table = try rcctl("versions").stdout.split(separator: "\n")
        #expect(table.count == 4)
        #expect(table.first?.hasPrefix("VERSION  UPDATED") == true)
        #expect(table.dropFirst().map { $0.prefix { $0 != " " } } == ["3", "2", "1"])
        #expect(table[1].contains("ROLLBACK to 1"))
        #expect(table[2].contains("FORCED_UPDATE"))

        let listed = try rcctl("versions", "--json").json()
        let versions = try #require(listed["versions"] as? [[String: Any]])
        #expect(versions.map { $0["versionNumber"] as? String } == ["3", "2", "1"])
        #expect(versions.first?["rollbackSource"] as? String == "1")
        let limited = try rcctl("versions", "--limit", "1")
        #expect(limited.stdout.hasSuffix("(more versions; raise --limit to see them)\n"))

        let diff = try rcctl("diff", "2", "3")
        #expect(diff.status == 0)
        let changes = diff.stdout.split(separator: "\n")
        #expect(changes.contains("diff.changedParameters[0].key: welcome"))
        #expect(changes.contains("diff.changedParameters[0].defaultValue.from.value: two"))
        #expect(changes.contains("diff.changedParameters[0].defaultValue.to.value: one"))
        #expect(changes.contains("diff.addedParameters: []"))
        #expect(changes.contains("from: 2"))
        #expect(changes.contains("to: 3"))
        let same = try rcctl("diff", "1", "3", "--json").json()
        let sameDiff = try #require(same["diff"] as? [String: Any])
        #expect(sameDiff.keys.contains("changedParameters"), "the diff lists its categories even when empty")
        let lists = sameDiff.values.compactMap { $0 as? [Any] } + sameDiff.values.compactMap { ($0 as? [String: [Any]])?.values }.joined()
        #expect(lists.count == 15 && lists.allSatisfy { $0.isEmpty }, "a rollback copies the version exactly")

        let missing = try rcctl("rollback", "99")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("not found"))
    }

    @Test func evaluateUsesTheContextFile() throws {
        try publish("hello")
        let ios = try file("ios.json", #"{"appInstanceId": "i1", "appId": "1:123456789012:ios:ab", "platform": "IOS"}"#)
        let result = try rcctl("evaluate", "--context", ios)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.contains("entries.welcome: hello ios"))
        #expect(lines.contains("explanation.conditions[0].value: true"))
        #expect(lines.contains("templateVersion: 1"))

        let web = try rcctl("evaluate", "--context", "-", "--json", stdin: #"{"appInstanceId": "i2", "appId": "1:123456789012:web:ab"}"#)
        #expect(try web.json()["entries"] as? [String: String] == ["welcome": "hello"])
        let broken = try rcctl("evaluate", "--context", "-", stdin: "{")
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("standard input is not valid JSON"))
    }

    /// A Firebase export imports and exports again with the same conditions, parameters and groups.
    @Test func importedFirebaseExportReadsBackUnchanged() throws {
        let fixture = URL(fileURLWithPath: "Tests/ConfigCoreTests/Fixtures/firebase-export.json")
        let imported = try rcctl("import", fixture.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Published version 1 (ETag etag-123456789012-1)\n")

        let original = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: fixture)) as? [String: Any])
        let exported = try rcctl("export").json()
        for key in ["conditions", "parameters", "parameterGroups"] {
            #expect(try canonical(exported[key]) == canonical(original[key]), "\(key)")
        }
        // The source project's version block is not carried over.
        let version = try #require(exported["version"] as? [String: Any])
        #expect(version["versionNumber"] as? String == "1")
        #expect(version["description"] == nil)

        let path = directory.appendingPathComponent("export.json").path
        let toFile = try rcctl("export", "-o", path)
        #expect(toFile.stderr == "Exported the template to \(path)\n")
        let reimported = try rcctl("import", path, "--validate-only")
        #expect(reimported.stdout == "Template is valid (nothing published)\n")
    }

    /// JSON text with sorted keys, so equal values compare equal.
    func canonical(_ value: Any?) throws -> String {
        let value = try #require(value)
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    @Test func watchPrintsTheVersionOfAPublish() throws {
        try publish("one")
        let watch = try RCCtlWatch(["--api-key", "example-api-key"], port: daemon.port)
        // With --since 0 the server first announces the current version: the stream is held.
        #expect(watch.firstLine(containing: "latest version") == "latest version 1")
        try publish("two")
        #expect(watch.firstLine(containing: "latest version") == "latest version 2")
        _ = watch.stop()
    }

    @Test func watchWithoutAnAPIKeyIsRefused() throws {
        let result = try rcctl("watch")
        #expect(result.status == 1)
        #expect(result.stderr.contains("HTTP 401"))
        #expect(result.stderr.contains("Missing API key"))
    }

    @Test func wrongOrMissingTokenAndUnreachableServer() throws {
        let wrong = try rcctl("get", token: "not-the-token")
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "rcctl: the server answered HTTP 403 PERMISSION_DENIED: The credentials are not a valid admin token.\n")
        #expect(wrong.stdout.isEmpty)
        let publish = try rcctl("publish", try template("x"), "--force", token: "not-the-token")
        #expect(publish.status == 1)
        #expect(publish.stderr.contains("PERMISSION_DENIED"))

        let none = try rcctl("versions", token: nil)
        #expect(none.status == 1)
        #expect(none.stderr.contains("HTTP 401 UNAUTHENTICATED"))

        let flag = try rcctl("get", "--token", "also-wrong")
        #expect(flag.status == 1, "--token beats RCS_TOKEN")

        let unreachable = try RCCtlProcess.run(["get", "--url", "http://127.0.0.1:1"], port: daemon.port)
        #expect(unreachable.status == 3)
        #expect(unreachable.stderr.hasPrefix("rcctl: cannot reach the server"))
    }

    @Test func unknownProjectIsNamed() throws {
        let result = try rcctl("get", "--project", "nope")
        #expect(result.status == 1)
        #expect(result.stderr.contains("Project 'nope' not found"))
    }

    @Test func canaryPublishGrowPromoteAndAbort() throws {
        try publish("one")
        let canary = try rcctl("publish", try template("two"), "--canary", "5")
        #expect(canary.status == 0, "\(canary.stderr)")
        #expect(canary.stdout == "Published version 2 as a canary to 5.0 % of the instances (ETag etag-123456789012-2)\n")
        #expect(try rcctl("canary").stdout == "Version 2 is served to 5.0 % of the instances; the others get version 1 (ETag etag-123456789012-2)\n")
        #expect(try rcctl("canary", "--percent", "25").stdout.hasPrefix("Version 2 is served to 25.0 %"))
        let refused = try rcctl("publish", try template("three"), "--force")
        #expect(refused.status == 1 && refused.stderr.contains("[CANARY_RUNNING]"))
        #expect(try rcctl("publish", try template("x"), "--canary", "0").status == 2)
        let promoted = try rcctl("promote")
        #expect(promoted.stdout == "Promoted the canary: version 3 is served to every instance (ETag etag-123456789012-3)\n")
        #expect(try rcctl("canary").status == 1, "no canary any more")
        #expect(try rcctl("publish", try template("four"), "--canary", "50").status == 0)
        let aborted = try rcctl("abort", "--etag", "etag-123456789012-4")
        #expect(aborted.stdout == "Aborted the canary: version 5 repeats the stable one (ETag etag-123456789012-5)\n")
        #expect(try rcctl("abort").status == 1)
    }
}
