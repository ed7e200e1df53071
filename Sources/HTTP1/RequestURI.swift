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
        var target = Substring(target)
        // Absolute-form (RFC 9112 §3.2.2): keep what follows the authority.
        if !target.hasPrefix("/"), let colon = target.firstIndex(of: ":"), target[colon...].hasPrefix("://") {
            let rest = target[target.index(colon, offsetBy: 3)...]
            target = rest.firstIndex(where: { $0 == "/" || $0 == "?" }).map { rest[$0...] } ?? "/"
        }
        let parts = target.split(ascii: UInt8(ascii: "?"), maxSplits: 1)
        path = Self.decode(parts.first ?? "/", plusIsSpace: false)
        if path.isEmpty { path = "/" }
        query = parts.count > 1 ? Self.parseQuery(parts[1]) : []
    }

    /// The first value of query parameter `name`.
    public subscript(name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    static func parseQuery(_ text: Substring) -> [(name: String, value: String)] {
        text.split(ascii: UInt8(ascii: "&")).filter { !$0.isEmpty }.map { pair in
            let nameAndValue = pair.split(ascii: UInt8(ascii: "="), maxSplits: 1)
            let name = decode(nameAndValue[0], plusIsSpace: true)
            let value = nameAndValue.count > 1 ? decode(nameAndValue[1], plusIsSpace: true) : ""
            return (name: name, value: value)
        }
    }

    /// Percent-decodes; a malformed escape is kept as written rather than guessed at.
    static func decode(_ text: Substring, plusIsSpace: Bool) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.count,
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

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
