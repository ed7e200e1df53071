@testable import EventLoop
import Testing

@Suite struct ClientAddressTests {
    let proxies: Set<String> = ["127.0.0.1", "10.0.0.2"]

    @Test func anUntrustedPeerIsTheClientWhateverItClaims() {
        #expect(ClientAddress.resolve(peer: "203.0.113.9", forwardedFor: ["1.2.3.4"], trusted: proxies) == "203.0.113.9")
    }

    @Test func aTrustedProxyNamesTheClient() {
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: ["198.51.100.7"], trusted: proxies) == "198.51.100.7")
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: [], trusted: proxies) == "127.0.0.1")
    }

    @Test func entriesBeforeTheFirstUntrustedHopAreNotBelieved() {
        // The client forged "6.6.6.6"; the proxy chain appended the real address and a trusted hop.
        let header = ["6.6.6.6, 198.51.100.7", "10.0.0.2"]
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: header, trusted: proxies) == "198.51.100.7")
    }

    @Test func somethingThatIsNotAnAddressEndsTheWalk() {
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: ["evil\nline"], trusted: proxies) == "127.0.0.1")
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: ["2001:db8::1"], trusted: proxies) == "2001:db8::1")
    }

    @Test func requestIDsAreTakenWhenPlainAndMadeOtherwise() {
        #expect(RequestID.make(incoming: "abc-123_x.y", counter: 1) == "abc-123_x.y")
        let made = RequestID.make(incoming: "has space", counter: 255)
        #expect(made.hasSuffix("-ff"))
        #expect(RequestID.make(incoming: String(repeating: "a", count: 65), counter: 1) != String(repeating: "a", count: 65))
        #expect(RequestID.make(incoming: nil, counter: 2) != RequestID.make(incoming: nil, counter: 3))
    }

    @Test func generatedIDsAreSixHexDigitsADashAndTheCounterInHex() {
        for counter: UInt64 in [0, 1, 0xabc, 0xffff_ffff, .max] {
            let id = RequestID.generated(counter: counter)
            let parts = id.split(separator: "-")
            #expect(parts.count == 2)
            #expect(parts[0].count == 6 && parts[0].allSatisfy(\.isHexDigit))
            #expect(UInt64(parts[1], radix: 16) == counter)
        }
        #expect(RequestID.generated(counter: 7).hasSuffix("-7"))
    }
}
