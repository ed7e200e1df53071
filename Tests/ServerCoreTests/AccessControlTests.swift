@testable import ServerCore
import Testing

@Suite struct AccessControlTests {
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
        access.setAPIKeyDigests([SecretDigest(secret: "key-a")], project: "a")
        access.addAPIKeyDigest(SecretDigest(secret: "key-a2"), project: "a")
        #expect(access.isValidAPIKey("key-a", project: "a"))
        #expect(access.isValidAPIKey("key-a2", project: "a"))
        #expect(!access.isValidAPIKey("key-a", project: "b"))
        #expect(!access.isValidAPIKey("key-", project: "a"))
    }

    @Test func aRememberedKeyStaysBoundToItsProjectAndIsForgottenWhenKeysChange() {
        let access = AccessControl(adminTokens: [])
        access.setAPIKeyDigests([SecretDigest(secret: "key-a")], project: "a")
        access.setAPIKeyDigests([SecretDigest(secret: "key-b")], project: "b")
        // Accepted once, so remembered; a second presentation takes the remembered path.
        #expect(access.isValidAPIKey("key-a", project: "a"))
        #expect(access.isValidAPIKey("key-a", project: "a"))
        #expect(!access.isValidAPIKey("key-a", project: "b"))
        #expect(!access.isValidAPIKey("key-b", project: "a"))
        #expect(!access.isValidAPIKey("key-a ", project: "a"))
        // Rotating the project's keys revokes the remembered one at once.
        access.setAPIKeyDigests([SecretDigest(secret: "key-a-rotated")], project: "a")
        #expect(!access.isValidAPIKey("key-a", project: "a"))
        #expect(access.isValidAPIKey("key-a-rotated", project: "a"))
        // Adding a key keeps the accepted ones valid; another project's rotation leaves a's alone.
        access.addAPIKeyDigest(SecretDigest(secret: "key-a-second"), project: "a")
        access.setAPIKeyDigests([SecretDigest(secret: "key-b-rotated")], project: "b")
        #expect(access.isValidAPIKey("key-a-rotated", project: "a") && access.isValidAPIKey("key-a-second", project: "a"))
        #expect(!access.isValidAPIKey("key-b", project: "b"))
        // More keys than are remembered all stay valid.
        let many = (0..<40).map { "key-\($0)" }
        access.setAPIKeyDigests(many.map { SecretDigest(secret: $0) }, project: "c")
        for key in many + many { #expect(access.isValidAPIKey(key, project: "c")) }
    }

    /// OFREP finds the project by the key alone: a key of two projects finds neither, even one
    /// that was remembered with its first project before the second got it.
    @Test func aClientKeyOfTwoProjectsNamesNoProject() {
        let access = AccessControl(adminTokens: [])
        access.setAPIKeyDigests([SecretDigest(secret: "shared")], project: "a")
        access.setAPIKeyDigests([SecretDigest(secret: "shared")], project: "b")
        #expect(access.project(forClientKey: "shared") == nil)
        access.setAPIKeyDigests([SecretDigest(secret: "own")], project: "b")
        #expect(access.project(forClientKey: "shared") == "a")
        #expect(access.project(forClientKey: "shared") == "a", "remembered")
        access.addAPIKeyDigest(SecretDigest(secret: "shared"), project: "b")
        #expect(access.project(forClientKey: "shared") == nil)
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
