@testable import Webhooks
import Testing

/// The private-address check of webhook URLs (docs/webhooks.md, "Addresses"), by value: which
/// URLs are accepted, and which addresses count as public. Only numeric hosts: nothing resolves.
@Suite struct WebhookAddressTests {
    static func refusal(_ url: String) -> String? {
        do {
            _ = try WebhookAddress(url: url)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func aURLGivesItsSchemeHostAndPort() throws {
        let plain = try WebhookAddress(url: "http://Hooks.Example.com/path?q=1")
        #expect(plain.scheme == "http" && plain.host == "hooks.example.com" && plain.port == 80)
        #expect(try WebhookAddress(url: "HTTPS://example.com").port == 443)
        #expect(try WebhookAddress(url: "https://example.com:8443/x").port == 8443)
        let v6 = try WebhookAddress(url: "http://[2606:4700::1111]:8080/")
        #expect(v6.host == "2606:4700::1111" && v6.port == 8080 && v6.hostIsAddress)
        #expect(!plain.hostIsAddress)
    }

    @Test(arguments: [
        ("ftp://example.com/", "http or https"),
        ("example.com/hook", "http or https"),
        ("http:///path", "has no host"),
        ("https://user:secret@example.com/", "credentials"),
        ("https://example.com/#part", "fragment"),
        ("https://example.com:0/", "port 0"),
    ])
    func aURLIsRefusedWithItsReason(url: String, reason: String) {
        #expect(Self.refusal(url)?.contains(reason) == true, "\(url): \(Self.refusal(url) ?? "accepted")")
    }

    @Test func aURLIsAtMost2048Bytes() {
        let path = String(repeating: "a", count: 2_048 - "https://example.com/".utf8.count)
        #expect(Self.refusal("https://example.com/" + path) == nil)
        #expect(Self.refusal("https://example.com/" + path + "a")?.contains("2048") == true)
    }

    @Test(arguments: [
        "8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.1", "172.15.255.255", "172.32.0.1", "192.0.1.1", "198.17.0.1",
        "223.255.255.255", "2606:4700::1111", "2001:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
    ])
    func publicAddresses(address: String) throws {
        #expect(WebhookAddress.isPublic(try #require(WebhookAddress.bytes(ofNumeric: address))))
    }

    @Test(arguments: [
        // IPv4: this network, private, loopback, shared, link-local, protocol, documentation,
        // benchmarking, multicast, reserved and broadcast.
        "0.0.0.0", "10.1.2.3", "127.0.0.1", "100.64.0.1", "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "192.0.0.8", "192.0.2.1", "198.51.100.1", "203.0.113.9", "198.18.0.1", "224.0.0.1", "240.0.0.1", "255.255.255.255",
        // IPv6: loopback, unspecified, unique local, link-local, site-local, multicast, documentation,
        // and IPv4 private addresses carried inside IPv6 (mapped, compatible, NAT64, 6to4).
        "::1", "::", "fd00::1", "fe80::1", "fec0::1", "ff02::1", "2001:db8::1",
        "::ffff:127.0.0.1", "::10.0.0.1", "64:ff9b::a00:1", "2002:a00:1::1",
    ])
    func nonPublicAddresses(address: String) throws {
        #expect(!WebhookAddress.isPublic(try #require(WebhookAddress.bytes(ofNumeric: address))))
    }

    @Test func aNonPublicAddressIsRefusedUnlessAllowed() throws {
        let loopback = try WebhookAddress(url: "http://127.0.0.1:9/")
        #expect(throws: WebhookAddress.Refusal.self) { try loopback.checkedAddresses(allowPrivate: false) }
        #expect(try loopback.checkedAddresses(allowPrivate: true) == ["127.0.0.1"])
        #expect(try WebhookAddress(url: "https://8.8.8.8/").checkedAddresses(allowPrivate: false) == ["8.8.8.8"])
    }

    @Test func aNameThatIsNoAddressIsNotNumeric() {
        #expect(WebhookAddress.bytes(ofNumeric: "example.com") == nil)
        #expect(WebhookAddress.bytes(ofNumeric: "256.1.1.1") == nil)
        #expect(WebhookAddress.bytes(ofNumeric: "10.0.0.1")?.count == 4)
        #expect(WebhookAddress.bytes(ofNumeric: "::1")?.count == 16)
        #expect(!WebhookAddress.isPublic([1, 2, 3]), "neither 4 nor 16 bytes")
    }
}
