@testable import ServerCore
import Testing

@Suite struct UpdateUserEmailTests {
    @Test(arguments: [
        ("release-bot@acme.com", "release-bot@acme.com"),
        ("first.last+rc@mail.example.org", "first.last+rc@mail.example.org"),
        ("quick-start", "quick-start@example.com"),
        ("env", "env@example.com"),
        ("Ops Team", "ops-team@example.com"),
        ("admin@localhost", "admin-localhost@example.com"),
        ("dev@box.local", "dev-box.local@example.com"),
        ("a@b", "a-b@example.com"),
        ("", "admin@example.com"),
    ])
    func tokenNamesBecomeAddressesTheAdminSDKsAccept(_ name: String, _ email: String) {
        #expect(UpdateUserEmail.address(forTokenName: name) == email)
        #expect(UpdateUserEmail.isPlausibleAddress(UpdateUserEmail.address(forTokenName: name)))
    }

    @Test(arguments: ["lin@corp.local", "ada@example.com", "ops@intranet", "first.last+rc@mail.example.org"])
    func aPersonMayHaveAnInternalAddressAndAVersionStillShowsOneTheSDKsAccept(_ email: String) {
        #expect(UpdateUserEmail.isPersonAddress(email))
        #expect(UpdateUserEmail.isPlausibleAddress(UpdateUserEmail.address(forTokenName: email)))
    }

    @Test(arguments: ["lin", "@corp.local", "lin@", "lin@corp..local", "a@b@c", "lin smith@corp.local", "lin@corp_local"])
    func notAnAddressIsRefused(_ text: String) {
        #expect(!UpdateUserEmail.isPersonAddress(text))
    }
}
