import HTTP1

/// Who a request came from, seen through trusted reverse proxies.
enum ClientAddress {
    /// The peer, or, when the peer is a trusted proxy, the nearest address in `X-Forwarded-For`
    /// that is not itself a trusted proxy. Entries appended by untrusted hops are never
    /// believed, and anything that is not an IP address ends the walk.
    static func resolve(peer: String, forwardedFor: [String], trusted: Set<String>) -> String {
        guard trusted.contains(peer), !forwardedFor.isEmpty else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map(\.trimmingSpaces)
        var client = peer
        for hop in hops.reversed() {
            guard isAddress(hop) else { break }
            client = hop
            if !trusted.contains(hop) { break }
        }
        return client
    }

    /// IPv4 or IPv6 text: hex digits, dots and colons only (keeps log lines clean).
    private static func isAddress(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 45 && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                 UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"): true
            default: false
            }
        }
    }
}

/// Request ids for the access log and the `X-Request-Id` response header.
enum RequestID {
    /// Six hex digits chosen at start, so ids from different processes differ.
    private static let prefix: UInt32 = UInt32.random(in: 0...0xFF_FFFF)

    /// The client's (or proxy's) id when it is short and plain, else a new one.
    static func make(incoming: String?, counter: UInt64) -> String {
        if let incoming, !incoming.isEmpty, incoming.utf8.count <= 64, incoming.utf8.allSatisfy(isIDByte) {
            return incoming
        }
        return generated(counter: counter)
    }

    /// `prefix-counter` in hex, written over bytes: up to 2^32 requests it fits Swift's inline
    /// small string, so a generated id costs no allocation.
    static func generated(counter: UInt64) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var length = appendHex(UInt64(prefix), minimumDigits: 6, to: buffer, at: 0)
            buffer[length] = UInt8(ascii: "-")
            length = appendHex(counter, minimumDigits: 1, to: buffer, at: length + 1)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<length]), as: UTF8.self)
        }
    }

    private static func appendHex(_ value: UInt64, minimumDigits: Int, to buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        let digits = max(minimumDigits, (67 - value.leadingZeroBitCount) / 4)
        let hex: StaticString = "0123456789abcdef"
        for index in 0..<digits {
            let nibble = Int(truncatingIfNeeded: value >> UInt64(4 * (digits - 1 - index))) & 15
            buffer[offset + index] = hex.utf8Start[nibble]
        }
        return offset + digits
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
        default: false
        }
    }
}
