import Foundation
import Glibc

/// Where a webhook URL points, and whether the server may connect there: a guard against
/// server-side request forgery (docs/webhooks.md, "Addresses"). Loopback, private,
/// link-local, shared, multicast, documentation and reserved addresses are refused unless the
/// settings allow them. A URL is checked when saved and again before each attempt, and the
/// attempt then connects to the address just checked (a name that resolves elsewhere the second
/// time gains nothing).
struct WebhookAddress: Sendable, Equatable {
    let scheme: String
    /// The host as the URL names it (no brackets around an IPv6 literal).
    let host: String
    let port: Int

    /// Why a URL or its addresses are refused, in words for the caller.
    struct Refusal: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// The parts of an `http` or `https` URL with a host and no credentials.
    init(url: String) throws(Refusal) {
        guard url.utf8.count <= 2_048 else { throw Refusal("url must be at most 2048 bytes.") }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              ["http", "https"].contains(scheme) else {
            throw Refusal("url must be an http or https URL, got '\(url)'.")
        }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw Refusal("url '\(url)' has no host.") }
        guard components.user == nil, components.password == nil else {
            throw Refusal("url must not hold credentials; the endpoint checks the signature instead.")
        }
        guard components.fragment == nil else { throw Refusal("url must not have a fragment.") }
        guard (components.port ?? 1) > 0 else { throw Refusal("url '\(url)' has port 0.") }
        self.scheme = scheme
        self.host = host.lowercased()
        port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Whether the host is an address itself (nothing to resolve).
    var hostIsAddress: Bool { Self.bytes(ofNumeric: host) != nil }

    /// The addresses the host has now (blocking: never on an event loop), each checked; the
    /// first is the one to connect to.
    /// - Throws: when the host does not resolve, or any of its addresses is refused.
    func checkedAddresses(allowPrivate: Bool) throws(Refusal) -> [String] {
        let addresses = try resolve()
        if !allowPrivate, let refused = addresses.first(where: { !Self.isPublic($0.bytes) }) {
            throw Refusal("url's host '\(host)' has the address \(refused.text), which is loopback, private, link-local or "
                + "reserved: refused (webhooks.allowPrivateAddresses).")
        }
        return addresses.map(\.text)
    }

    /// The host's addresses, as numbers and as text.
    private func resolve() throws(Refusal) -> [(bytes: [UInt8], text: String)] {
        if let bytes = Self.bytes(ofNumeric: host) { return [(bytes, host)] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, "\(port)", &hints, &list)
        guard status == 0, let list else {
            throw Refusal("url's host '\(host)' does not resolve (\(String(cString: gai_strerror(status)))).")
        }
        defer { freeaddrinfo(list) }
        var found: [(bytes: [UInt8], text: String)] = []
        for entry in sequence(first: list, next: { $0.pointee.ai_next }) {
            guard let address = entry.pointee.ai_addr, let bytes = Self.bytes(of: address) else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let family = Int32(address.pointee.sa_family)
            _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
            let printed = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !found.contains(where: { $0.bytes == bytes }) { found.append((bytes, printed)) }
        }
        guard !found.isEmpty else { throw Refusal("url's host '\(host)' has no address.") }
        return found
    }

    private static func bytes(of address: UnsafeMutablePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 literal.
    static func bytes(ofNumeric text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// Whether an address (4 or 16 bytes) is one on the public internet.
    static func isPublic(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 { return isPublicV4(bytes[0], bytes[1], bytes[2]) }
        guard bytes.count == 16 else { return false }
        let prefix = bytes.prefix(12)
        // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96): the IPv4 address decides.
        if prefix.prefix(10).allSatisfy({ $0 == 0 }) && (prefix[10] == 0xFF && prefix[11] == 0xFF || prefix[10] == 0 && prefix[11] == 0)
            || Array(prefix) == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return isPublicV4(bytes[12], bytes[13], bytes[14])
        }
        // 6to4 (2002::/16) carries its IPv4 address in bytes 2 to 5.
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isPublicV4(bytes[2], bytes[3], bytes[4]) }
        switch (bytes[0], bytes[1]) {
        case (0xFC...0xFD, _): return false  // unique local, fc00::/7
        case (0xFE, 0x80...0xFF): return false  // link-local fe80::/10, site-local fec0::/10
        case (0xFF, _): return false  // multicast
        case (0x20, 0x01) where bytes[2] == 0x0D && bytes[3] == 0xB8: return false  // documentation 2001:db8::/32
        default: return true
        }
    }

    private static func isPublicV4(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Bool {
        switch (a, b, c) {
        case (0, _, _), (10, _, _), (127, _, _): return false  // "this" network, private, loopback
        case (100, 64...127, _): return false  // shared (carrier-grade NAT)
        case (169, 254, _): return false  // link-local (cloud metadata services)
        case (172, 16...31, _), (192, 168, _): return false  // private
        case (192, 0, 0), (192, 0, 2), (198, 51, 100), (203, 0, 113): return false  // protocol assignments, documentation
        case (198, 18...19, _): return false  // benchmarking
        case (224..., _, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }
}
