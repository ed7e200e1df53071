import ConfigCore
@testable import ServerCore
import Testing

@Suite struct AccessControlTests {
    static func entry(_ secret: String, _ environment: EnvironmentID = .production) -> ClientKeyTable.Entry {
        ClientKeyTable.Entry(digest: SecretDigest(secret: secret), environment: environment)
    }

    @Test func aKeyServesItsEnvironmentWhereverItIsFound() throws {
        let access = AccessControl(adminTokens: [])
        let staging = try #require(EnvironmentID(rawValue: "staging"))
        access.clientKeys.replace([Self.entry("prod-key"), Self.entry("staging-key", staging)], project: "a")
        for _ in 0..<2 {  // the second time from the keys remembered in clear
            #expect(access.clientKeys.environment(ofKey: "staging-key", project: "a") == staging)
            #expect(access.clientKeys.environment(ofKey: "prod-key", project: "a") == .production)
            #expect(access.owner(ofClientKey: "staging-key") == ClientKeyTable.Owner(project: "a", environment: staging))
        }
        #expect(access.clientKeys.environment(ofKey: "staging-key", project: "b") == nil)
        access.clientKeys.replace([Self.entry("staging-key")], project: "a")
        #expect(access.clientKeys.environment(ofKey: "staging-key", project: "a") == .production, "a key moved is served where it went")
        #expect(access.owner(ofClientKey: "staging-key")?.environment == .production)
    }

    @Test func aDigestIsTheSHA256OfTheSecretAndReadsBackFromHex() throws {
        // Reference digests computed elsewhere (FIPS 180-2's "abc" and the empty string, and
        // Python's hashlib for the key).
        #expect(SecretDigest(secret: "abc").hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SecretDigest(secret: "").hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let digest = SecretDigest(secret: "rcs_0123456789abcdef")
        #expect(digest.hex == "3a5ed5fdc5ae13e871c0854b097bc8fa6d090cbdbc8392616ef3ce7e9b06a639")
        let upper = try #require(SecretDigest(hex: digest.hex.uppercased()))
        #expect(upper.matches(digest))
        #expect(!SecretDigest(secret: "rcs_0123456789abcdeF").matches(digest))
        #expect(SecretDigest(hex: String(digest.hex.dropLast())) == nil)
        #expect(SecretDigest(hex: String(digest.hex.dropLast()) + "g") == nil)
    }

    @Test func apiKeysAreValidOnlyForTheirProject() {
        let access = AccessControl(adminTokens: [])
        access.clientKeys.replace([Self.entry("key-a")], project: "a")
        access.clientKeys.add(Self.entry("key-a2"), project: "a")
        #expect((access.clientKeys.environment(ofKey: "key-a", project: "a") != nil))
        #expect((access.clientKeys.environment(ofKey: "key-a2", project: "a") != nil))
        #expect(!(access.clientKeys.environment(ofKey: "key-a", project: "b") != nil))
        #expect(!(access.clientKeys.environment(ofKey: "key-", project: "a") != nil))
    }

    @Test func aRememberedKeyStaysBoundToItsProjectAndIsForgottenWhenKeysChange() {
        let access = AccessControl(adminTokens: [])
        access.clientKeys.replace([Self.entry("key-a")], project: "a")
        access.clientKeys.replace([Self.entry("key-b")], project: "b")
        // Accepted once, so remembered; a second presentation takes the remembered path.
        #expect((access.clientKeys.environment(ofKey: "key-a", project: "a") != nil))
        #expect((access.clientKeys.environment(ofKey: "key-a", project: "a") != nil))
        #expect(!(access.clientKeys.environment(ofKey: "key-a", project: "b") != nil))
        #expect(!(access.clientKeys.environment(ofKey: "key-b", project: "a") != nil))
        #expect(!(access.clientKeys.environment(ofKey: "key-a ", project: "a") != nil))
        // Rotating the project's keys revokes the remembered one at once.
        access.clientKeys.replace([Self.entry("key-a-rotated")], project: "a")
        #expect(!(access.clientKeys.environment(ofKey: "key-a", project: "a") != nil))
        #expect((access.clientKeys.environment(ofKey: "key-a-rotated", project: "a") != nil))
        // Adding a key keeps the accepted ones valid; another project's rotation leaves a's alone.
        access.clientKeys.add(Self.entry("key-a-second"), project: "a")
        access.clientKeys.replace([Self.entry("key-b-rotated")], project: "b")
        #expect((access.clientKeys.environment(ofKey: "key-a-rotated", project: "a") != nil) && (access.clientKeys.environment(ofKey: "key-a-second", project: "a") != nil))
        #expect(!(access.clientKeys.environment(ofKey: "key-b", project: "b") != nil))
        // More keys than are remembered all stay valid.
        let many = (0..<40).map { "key-\($0)" }
        access.clientKeys.replace(many.map { Self.entry($0) }, project: "c")
        for key in many + many { #expect((access.clientKeys.environment(ofKey: key, project: "c") != nil)) }
    }

    /// OFREP finds the project by the key alone: a key of two projects finds neither, even one
    /// that was remembered with its first project before the second got it.
    @Test func aClientKeyOfTwoProjectsNamesNoProject() {
        let access = AccessControl(adminTokens: [])
        access.clientKeys.replace([Self.entry("shared")], project: "a")
        access.clientKeys.replace([Self.entry("shared")], project: "b")
        #expect(access.owner(ofClientKey: "shared")?.project == nil)
        access.clientKeys.replace([Self.entry("own")], project: "b")
        #expect(access.owner(ofClientKey: "shared")?.project == "a")
        #expect(access.owner(ofClientKey: "shared")?.project == "a", "remembered")
        access.clientKeys.add(Self.entry("shared"), project: "b")
        #expect(access.owner(ofClientKey: "shared")?.project == nil)
    }

    @Test func constantTimeEqualityIsPlainEquality() {
        #expect(AccessControl.constantTimeEqual("abc", "abc"))
        #expect(!AccessControl.constantTimeEqual("abc", "abd"))
        #expect(!AccessControl.constantTimeEqual("abc", "abcd"))
        #expect(AccessControl.constantTimeEqual("", ""))
        #expect(!AccessControl.constantTimeEqual("é", "e\u{301}"))
    }

    @Test func adminTokensMatchByClearTextOrByConfiguredHash() {
        let access = AccessControl(adminTokens: [
            AdminTokenDeclaration(name: "ci", token: "clear-token"),
            // The SHA-256 of "hashed-token".
            AdminTokenDeclaration(name: "ops", sha256: "550643f45e135491c47bea94823b37278d5dd91375b285d44001d005d1603a33"),
        ])
        #expect(access.admin(bearer: "clear-token")?.name == "ci")
        #expect(access.admin(bearer: "hashed-token")?.name == "ops")
        #expect(access.admin(bearer: "clear-token ") == nil)
    }
}
