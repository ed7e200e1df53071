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
        if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = Self.decode(target[..<mark], plusIsSpace: false)
            query = Self.parseQuery(target[target.utf8.index(after: mark)...])
        } else {
            path = Self.decode(target, plusIsSpace: false)
            query = []
        }
        if path.isEmpty { path = "/" }
    }

    /// The first value of query parameter `name`.
    public subscript(name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    static func parseQuery(_ text: Substring) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var rest = text
        while !rest.isEmpty {
            let end = rest.utf8.firstIndex(of: UInt8(ascii: "&")) ?? rest.endIndex
            let pair = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.utf8.index(after: end)...]
            guard !pair.isEmpty else { continue }
            if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                result.append((decode(pair[..<equals], plusIsSpace: true),
                               decode(pair[pair.utf8.index(after: equals)...], plusIsSpace: true)))
            } else {
                result.append((decode(pair, plusIsSpace: true), ""))
            }
        }
        return result
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
