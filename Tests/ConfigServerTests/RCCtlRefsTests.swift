import Foundation
import Testing
import TestSupport

/// `rcctl refs`: which template keys a source tree uses, in each language the SDKs are written
/// in, read from a small tree of real-looking files (no server: the keys come from a file).
@Suite struct RCCtlRefsTests {
    static let template = #"""
        {"parameters": {"welcome_message": {"defaultValue": {"value": "Hi"}}, "dark_mode": {"defaultValue": {"value": "false"}},
                        "retry_limit": {"defaultValue": {"value": "3"}}, "old_banner": {"defaultValue": {"value": "x"}}},
         "parameterGroups": {"checkout": {"parameters": {"promo_code": {"defaultValue": {"value": "SAVE"}}, "legacy_flow": {}}}}}
        """#

    static let files: [String: String] = [
        "ios/Home.swift": """
            let title = remoteConfig["welcome_message"].stringValue
            let dark = RemoteConfig.remoteConfig().configValue(forKey: "dark_mode").boolValue
            let gone = remoteConfig.configValue(forKey: "removed_key")
            """,
        "android/app/Main.kt": """
            val limit = remoteConfig.getLong("retry_limit")
            val code = Firebase.remoteConfig.getString("promo_code")
            """,
        "android/legacy/Old.java": "String code = config.getString(\"promo_code\"); // and 'dark_mode' again\n",
        "web/src/app.ts": "const v = getValue(remoteConfig, 'welcome_message');\nconst f = await client.getBooleanValue(`beta_search`, false);\n",
        "web/src/extra.jsx": "export const key = \"dark_mode\";\n",
        "flutter/lib/main.dart": "final limit = remoteConfig.getInt('retry_limit');\n",
        "server/app.py": "promo = config.get_string('promo_code')\nmissing = config.get_boolean(\"ghost_flag\")\n",
        "node_modules/sdk/index.js": "getString('old_banner')\n",
        "README.md": "old_banner is documented here, \"legacy_flow\" too, but this is no source file\n",
    ]

    @Test func keysAreFoundInEveryLanguageAndTheUnusedOnesListed() throws {
        try TemporaryDirectory.with("refs") { directory in
            let tree = directory.appendingPathComponent("tree")
            for (path, text) in Self.files {
                let file = tree.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file)
            }
            let template = directory.appendingPathComponent("template.json")
            try Data(Self.template.utf8).write(to: template)

            let result = try RCCtlProcess.run(["refs", tree.path, "--template", template.path, "--json"], port: 1)
            #expect(result.status == 0, "\(result.stderr)")
            let json = try result.json()
            let referenced = try #require(json["referenced"] as? [String: [String]])
            #expect(referenced["welcome_message"] == ["ios/Home.swift:1", "web/src/app.ts:1"])
            #expect(referenced["dark_mode"] == ["android/legacy/Old.java:1", "ios/Home.swift:2", "web/src/extra.jsx:1"])
            #expect(referenced["retry_limit"] == ["android/app/Main.kt:1", "flutter/lib/main.dart:1"])
            #expect(referenced["promo_code"] == ["android/app/Main.kt:2", "android/legacy/Old.java:1", "server/app.py:1"])
            #expect(json["unreferenced"] as? [String] == ["legacy_flow", "old_banner"], "node_modules and README are not read")
            let missing = try #require(json["notInTemplate"] as? [String: [String]])
            #expect(missing == ["removed_key": ["ios/Home.swift:3"], "beta_search": ["web/src/app.ts:2"], "ghost_flag": ["server/app.py:2"]])
            #expect(json["files"] as? Int == 7)

            let failing = try RCCtlProcess.run(["refs", tree.path, "--template", template.path, "--fail-on-unreferenced"], port: 1)
            #expect(failing.status == 1)
            #expect(failing.stdout.contains("Used nowhere (2):\n  legacy_flow\n  old_banner"))
            #expect(failing.stderr.contains("2 keys are used nowhere"))

            let notADirectory = try RCCtlProcess.run(["refs", template.path, "--template", template.path], port: 1)
            #expect(notADirectory.status == 2)
        }
    }
}
