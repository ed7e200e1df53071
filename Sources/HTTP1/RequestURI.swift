/// A request target split into path and query (RFC 3986), percent-decoded.
public struct RequestURI: Sendable, Equatable {
    /// The decoded path, e.g. `/v1/projects/p/remoteConfig:listVersions`.
    public var path: String
    /// Query parameters in order; `+` is a space, as HTML forms and Google APIs send it.
    public var query: [(name: String, value: String)]

    public static func == (lhs: RequestURI, rhs: RequestURI) -> Bool {
        lhs.path == rhs.path && lhs.query.elementsEqual(rhs.query) { $0 == $1 }
    }

    public init(target: String) {
        var target = target
        (path, query) = target.withUTF8(Self.split)
        if path.isEmpty { path = "/" }
    }

    /// Path and query of a target, over its bytes (this runs for every request).
    private static func split(_ target: UnsafeBufferPointer<UInt8>) -> (String, [(name: String, value: String)]) {
        var bytes = target[...]
        // Absolute-form (RFC 9112 §3.2.2): keep what follows the authority.
        if bytes.first != UInt8(ascii: "/"), let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
           bytes[colon...].starts(with: "://".utf8) {
            let authority = bytes[(colon + 3)...]
            guard let end = authority.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else { return ("/", []) }
            bytes = bytes[end...]
        }
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return (decode(bytes, plusIsSpace: false), []) }
        return (decode(bytes[..<mark], plusIsSpace: false), parseQuery(bytes[(mark + 1)...]))
    }

    /// The first value of query parameter `name`.
    public subscript(name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// One query component (a name or a value) as the query parser decodes it.
    public static func decodeQueryComponent(_ text: Substring) -> String {
        var text = String(text)
        return text.withUTF8 { decode($0[...], plusIsSpace: true) }
    }

    static func parseQuery(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var pairStart = text.startIndex
        for index in text.startIndex...text.endIndex where index == text.endIndex || text[index] == UInt8(ascii: "&") {
            let pair = text[pairStart..<index]
            pairStart = index + 1
            guard !pair.isEmpty else { continue }
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                result.append((decode(pair[..<equals], plusIsSpace: true), decode(pair[(equals + 1)...], plusIsSpace: true)))
            } else {
                result.append((decode(pair, plusIsSpace: true), ""))
            }
        }
        return result
    }

    /// Percent-decodes; a malformed escape is kept as written rather than guessed at.
    static func decode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, plusIsSpace: Bool) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.endIndex,
               let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The value of one hex digit, or nil.
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
