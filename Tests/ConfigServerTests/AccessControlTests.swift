@testable import ConfigServer
import Crypto
import Testing

@Suite struct AccessControlTests {
    /// The hex the store keeps, computed independently of `SecretDigest`.
    private func referenceHex(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).map { byte in
            let digits = Array("0123456789abcdef")
            return "\(digits[Int(byte >> 4)])\(digits[Int(byte & 15)])"
        }.joined()
    }

    @Test func aDigestIsTheSHA256OfTheSecretAndReadsBackFromHex() throws {
        let digest = SecretDigest(secret: "rcs_0123456789abcdef")
        #expect(digest.hex == referenceHex("rcs_0123456789abcdef"))
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
            AdminTokenDeclaration(name: "ops", sha256: referenceHex("hashed-token")),
        ])
        #expect(access.admin(bearer: "clear-token")?.name == "ci")
        #expect(access.admin(bearer: "hashed-token")?.name == "ops")
        #expect(access.admin(bearer: "clear-token ") == nil)
    }
}
