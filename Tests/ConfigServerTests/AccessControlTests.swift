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
