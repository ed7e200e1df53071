/// How a request body is delimited (RFC 9112 §6.3).
enum BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

/// What the parser needs to know from the header fields, gathered while they are read, over
/// their bytes: Host, Connection, Expect and the body framing. One pass, no allocation.
struct FieldFacts {
    private var hosts = 0
    private var hostError: HTTPParseError?
    private var mentionsClose = false
    private var keepAliveToken = false
    private var expectsContinue: Bool?
    private var transferEncodings = 0
    private var transferEncodingIsChunked = false
    private var contentLengths = 0
    private var contentLength: Int?
    private var contentLengthError: HTTPParseError?

    typealias Bytes = HeadBytes

    /// Notes one field; the name is checked as a token already, the value is trimmed.
    mutating func note(name: Bytes, value: Bytes) {
        switch name.count {
        case 4 where Self.equalsIgnoringCase(name, "host"):
            hosts += 1
            if hostError == nil { hostError = Self.hostError(value) }
        case 10 where Self.equalsIgnoringCase(name, "connection"):
            noteConnection(value)
        case 6 where Self.equalsIgnoringCase(name, "expect"):
            if expectsContinue == nil { expectsContinue = Self.equalsIgnoringCase(value, "100-continue") }
        case 17 where Self.equalsIgnoringCase(name, "transfer-encoding"):
            transferEncodings += 1
            transferEncodingIsChunked = Self.equalsIgnoringCase(value, "chunked")
        case 14 where Self.equalsIgnoringCase(name, "content-length"):
            contentLengths += 1
            noteContentLength(value)
        default:
            break
        }
    }

    /// Host, Connection and Expect rules (RFC 9112 §3.2, §9.3; RFC 9110 §10.1.1).
    func apply(to head: inout HTTPRequestHead) throws(HTTPParseError) {
        if head.minorVersion == 1, hosts != 1 {
            throw .bad(hosts == 0 ? "HTTP/1.1 requests must carry a Host header." : "More than one Host header.")
        }
        if hosts > 1 { throw .bad("More than one Host header.") }
        if let hostError { throw hostError }
        // Any mention of close wins; HTTP/1.0 stays open only when asked to.
        head.keepAlive = !(mentionsClose || (head.minorVersion == 0 && !keepAliveToken))
        head.expectsContinue = expectsContinue == true && head.minorVersion == 1
    }

    /// Content-Length against Transfer-Encoding (RFC 9112 §6.1–§6.3): anything ambiguous is an error.
    func framing(minorVersion: Int, limits: HTTPLimits) throws(HTTPParseError) -> BodyFraming {
        if transferEncodings > 0 {
            guard contentLengths == 0 else { throw .bad("Content-Length and Transfer-Encoding must not be sent together.") }
            guard minorVersion == 1 else { throw .bad("Transfer-Encoding is not allowed in HTTP/1.0.") }
            guard transferEncodings == 1, transferEncodingIsChunked else { throw .bad("Only 'Transfer-Encoding: chunked' is supported.") }
            return .chunked
        }
        guard contentLengths > 0 else { return .none }
        if let contentLengthError { throw contentLengthError }
        guard let contentLength else { throw .bad("Content-Length is empty.") }
        guard contentLength <= limits.maxBodyBytes else { throw HTTPRequestParser.bodyTooLarge(limits) }
        return contentLength == 0 ? .none : .length(contentLength)
    }

    private mutating func noteConnection(_ value: Bytes) {
        var tokenStart = value.startIndex
        for index in value.startIndex...value.endIndex where index == value.endIndex || value[index] == UInt8(ascii: ",") {
            let token = HeadParser.trimmingOWS(value[tokenStart..<index])
            if Self.equalsIgnoringCase(token, "keep-alive") { keepAliveToken = true }
            tokenStart = index + 1
        }
        if Self.containsIgnoringCase(value, "close") { mentionsClose = true }
    }

    /// Every value, and every comma-separated item in it, must be the same decimal number
    /// (RFC 9110 §8.6). The first problem is kept and reported once framing is decided.
    private mutating func noteContentLength(_ value: Bytes) {
        guard contentLengthError == nil else { return }
        var itemStart = value.startIndex
        for index in value.startIndex...value.endIndex where index == value.endIndex || value[index] == UInt8(ascii: ",") {
            let digits = HeadParser.trimmingOWS(value[itemStart..<index])
            itemStart = index + 1
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= .zero && $0 <= .nine }) else {
                contentLengthError = .bad("Content-Length is not a valid non-negative integer.")
                return
            }
            let number = digits.reduce(0) { $0 * 10 + Int($1 - .zero) }
            if let contentLength, contentLength != number {
                contentLengthError = .bad("Content-Length values differ.")
                return
            }
            contentLength = number
        }
    }

    /// `uri-host [ ":" port ]` without userinfo (RFC 9112 §3.2, RFC 3986 §3.2).
    private static func hostError(_ host: Bytes) -> HTTPParseError? {
        if host.contains(UInt8(ascii: "@")) { return .bad("The Host header must not carry userinfo.") }
        let valid = host.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), .zero ... .nine: true
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), .colon,
                 UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "%"): true
            default: false
            }
        }
        return valid ? nil : .bad("The Host header is not a valid host.")
    }

    /// ASCII case-insensitive equality with a lowercase literal.
    static func equalsIgnoringCase(_ bytes: Bytes, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { literal in
            zip(bytes, literal).allSatisfy { HTTPHeaders.lowercased($0) == $1 }
        }
    }

    private static func containsIgnoringCase(_ bytes: Bytes, _ lowercase: StaticString) -> Bool {
        let length = lowercase.utf8CodeUnitCount
        guard bytes.count >= length else { return false }
        return (bytes.startIndex...(bytes.endIndex - length)).contains { start in
            equalsIgnoringCase(bytes[start..<start + length], lowercase)
        }
    }
}
