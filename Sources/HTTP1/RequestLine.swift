/// `method SP request-target SP HTTP-version` (RFC 9112 §3), single spaces only.
///
/// Judged as soon as its CRLF arrives, and its first byte as soon as that arrives: an opening
/// that can never become an HTTP/1.x request (HTTP/0.9, another version, a TLS handshake, a
/// binary protocol) is refused at once instead of holding its connection until the header
/// deadline while the parser waits for a head end that will never come.
struct RequestLine {
    var method: HTTPMethod
    var target: String
    var minorVersion: Int

    init(_ line: HeadBytes, limits: HTTPLimits) throws(HTTPParseError) {
        guard let firstSpace = line.firstIndex(of: .space) else {
            throw .bad("The request line has no HTTP version; HTTP/0.9 is not supported.")
        }
        let method = line[line.startIndex..<firstSpace]
        guard !method.isEmpty, method.allSatisfy(HeadParser.isTokenByte) else { throw .bad("The request method is not a valid token.") }
        let afterMethod = line[(firstSpace + 1)...]
        guard let secondSpace = afterMethod.lastIndex(of: .space) else {
            throw .bad("The request line has no HTTP version; HTTP/0.9 is not supported.")
        }
        let target = line[(firstSpace + 1)..<secondSpace]
        let version = line[(secondSpace + 1)...]
        guard target.count <= limits.maxURILength else {
            throw HTTPParseError(status: 414, reason: "The request target is longer than \(limits.maxURILength) bytes.")
        }
        guard !target.isEmpty, Self.isVisibleASCII(UnsafeBufferPointer(rebasing: target)) else {
            throw .bad("The request target is empty or contains spaces or control characters.")
        }
        minorVersion = try Self.minorVersion(version)
        self.method = HTTPMethod(token: UnsafeBufferPointer(rebasing: method))
        self.target = String(decoding: target, as: UTF8.self)
        // origin-form, nearly every request's, is told by its first byte (the target is ASCII)
        // without asking the string.
        if target.first != UInt8(ascii: "/") { try Self.checkTargetForm(self.target, method: self.method.rawValue) }
    }

    /// Whether every byte is visible ASCII (0x21 to 0x7E), as a request target's must be. Read
    /// eight at a time, as `HeadParser.isFieldValue` reads values: a word with no byte below
    /// 0x21 and none above 0x7E (the exact tests of Hacker's Delight §6-1, "hasless" and
    /// "hasmore") needs no closer look; from the first word that does, byte by byte.
    static func isVisibleASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        allBytesValid(bytes) { word in
            let hasBelow = (word &- wordOnes &* 0x21) & ~word & wordHighBits
            let hasAbove = ((word &+ wordOnes &* (0x7F - 0x7E)) | word) & wordHighBits
            return hasBelow | hasAbove != 0
        } byteIsValid: { $0 > 0x20 && $0 < 0x7F }
    }

    /// Refuses a first byte that no request can start with. A request line starts with a
    /// method token (RFC 9112 §3.1), possibly after empty lines (§2.2), so a CR may still begin
    /// one, and a LF is left to the line rules (a bare LF). Anything else — a TLS handshake's
    /// 0x16, another control byte, a byte above 0x7F, a space — can never become HTTP/1.x.
    static func checkFirstByte(_ byte: UInt8) throws(HTTPParseError) {
        guard !HeadParser.isTokenByte(byte), byte != .cr, byte != .lf else { return }
        // TLS records of type 22 (handshake) open every TLS connection (RFC 8446 §5.1).
        if byte == 0x16 { throw .bad("The connection starts with a TLS handshake; this port speaks plain HTTP/1.1.") }
        throw .bad("The request does not start with a method token; this port speaks HTTP/1.1.")
    }

    private static func minorVersion(_ version: HeadBytes) throws(HTTPParseError) -> Int {
        let prefix: StaticString = "HTTP/"
        let text = UnsafeBufferPointer(rebasing: version)
        guard text.count == 8, prefix.withUTF8Buffer({ text.starts(with: $0) }),
              text[5] >= .zero, text[5] <= .nine, text[6] == UInt8(ascii: "."), text[7] >= .zero, text[7] <= .nine else {
            throw .bad("The HTTP version is malformed.")
        }
        guard text[5] == UInt8(ascii: "1") else {
            throw HTTPParseError(status: 505, reason: "Only HTTP/1.0 and HTTP/1.1 are supported.")
        }
        // A higher 1.x is processed as 1.1, the highest this server implements (RFC 9110 §2.5),
        // so every HTTP/1.1 rule (Host, chunked) applies to it.
        return min(Int(text[7] - .zero), 1)
    }

    /// origin-form for every method, absolute-form too, `*` only with OPTIONS (RFC 9112 §3.2).
    private static func checkTargetForm(_ target: String, method: String) throws(HTTPParseError) {
        if target.hasPrefix("/") { return }
        if target == "*" {
            guard method == "OPTIONS" else { throw .bad("The asterisk-form target is only allowed with OPTIONS.") }
            return
        }
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            let authority = target.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(2).first ?? ""
            guard !authority.isEmpty, !authority.contains("@") else {
                throw .bad("The absolute-form target has no host or carries userinfo.")
            }
            return
        }
        if method == "CONNECT" { throw HTTPParseError(status: 501, reason: "CONNECT is not supported.") }
        throw .bad("The request target must start with '/'.")
    }
}
