/// Parses a complete request head (request line and field lines, CRLF-separated, without the
/// final empty line) according to RFC 9112 §3 and §5, strictly.
struct HeadParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: HTTPLimits

    func parse() throws(HTTPParseError) -> (head: HTTPRequestHead, framing: BodyFraming) {
        var lines = LineIterator(bytes: bytes)
        guard let requestLine = try lines.next() else { throw .bad("The request line is missing.") }
        var head = try parseRequestLine(requestLine)
        var headerBytes = requestLine.count + 2
        var facts = FieldFacts()
        head.headers.reserveCapacity(12)
        while let line = try lines.next() {
            headerBytes += line.count + 2
            guard headerBytes <= limits.maxHeaderBytes else {
                throw HTTPParseError(status: 431, reason: "The request header section is larger than \(limits.maxHeaderBytes) bytes.")
            }
            guard head.headers.count < limits.maxHeaderCount else {
                throw HTTPParseError(status: 431, reason: "The request has more than \(limits.maxHeaderCount) header fields.")
            }
            let (name, value) = try Self.field(line)
            facts.note(name: name, value: value)
            head.headers.add(name: Self.text(name), value: Self.text(value))
        }
        try facts.apply(to: &head)
        return (head, try facts.framing(minorVersion: head.minorVersion, limits: limits))
    }

    private static func text(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
    }

    /// `method SP request-target SP HTTP-version`, single spaces only.
    private func parseRequestLine(_ line: Slice<UnsafeBufferPointer<UInt8>>) throws(HTTPParseError) -> HTTPRequestHead {
        guard let firstSpace = line.firstIndex(of: .space) else {
            throw .bad("The request line has no HTTP version; HTTP/0.9 is not supported.")
        }
        let method = line[line.startIndex..<firstSpace]
        guard !method.isEmpty, method.allSatisfy(Self.isTokenByte) else { throw .bad("The request method is not a valid token.") }
        let afterMethod = line[(firstSpace + 1)...]
        guard let secondSpace = afterMethod.lastIndex(of: .space) else {
            throw .bad("The request line has no HTTP version; HTTP/0.9 is not supported.")
        }
        let target = line[(firstSpace + 1)..<secondSpace]
        let version = line[(secondSpace + 1)...]
        guard target.count <= limits.maxURILength else {
            throw HTTPParseError(status: 414, reason: "The request target is longer than \(limits.maxURILength) bytes.")
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .bad("The request target is empty or contains spaces or control characters.")
        }
        let minor = try Self.minorVersion(version)
        let methodString = String(decoding: method, as: UTF8.self)
        let targetString = String(decoding: target, as: UTF8.self)
        try Self.checkTargetForm(targetString, method: methodString)
        return HTTPRequestHead(method: HTTPMethod(rawValue: methodString), target: targetString, minorVersion: minor)
    }

    private static func minorVersion(_ version: Slice<UnsafeBufferPointer<UInt8>>) throws(HTTPParseError) -> Int {
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

    /// `field-name ":" OWS field-value OWS`; no whitespace before the colon, no obs-fold.
    /// Returns the name and the trimmed value.
    static func field<Line: BidirectionalCollection<UInt8>>(_ line: Line) throws(HTTPParseError) -> (name: Line.SubSequence, value: Line.SubSequence) {
        guard let first = line.first else { throw .bad("Empty header line.") }
        if first == .space || first == .tab { throw .bad("Obsolete line folding (obs-fold) is not accepted.") }
        guard let colon = line.firstIndex(of: .colon) else { throw .bad("A header line has no colon.") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            throw .bad("A header name is empty or contains invalid characters (whitespace before ':' is not allowed).")
        }
        let value = trimmingOWS(line[line.index(after: colon)...])
        guard value.allSatisfy({ $0 == .tab || ($0 >= .space && $0 != 0x7F) }) else {
            throw .bad("Header '\(String(decoding: name, as: UTF8.self))' contains control characters.")
        }
        return (name, value)
    }

    /// Without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    static func trimmingOWS<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes where Bytes.SubSequence == Bytes {
        var bytes = bytes
        while let first = bytes.first, first == .space || first == .tab { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == .space || last == .tab { bytes = bytes.dropLast() }
        return bytes
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), .zero ... .nine: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}

/// Splits a head into CRLF-terminated lines; a bare CR or LF is an error.
struct LineIterator {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    mutating func next() throws(HTTPParseError) -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard position < bytes.count else { return nil }
        var index = position
        while index < bytes.count, bytes[index] != .cr, bytes[index] != .lf { index += 1 }
        let line = bytes[position..<index]
        if index < bytes.count {
            guard bytes[index] == .cr, index + 1 < bytes.count, bytes[index + 1] == .lf else {
                throw .bad("A bare CR or LF appears in the request head.")
            }
            position = index + 2
        } else {
            position = index
        }
        return line
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (optional whitespace, RFC 9110 §5.6.3).
    public var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
