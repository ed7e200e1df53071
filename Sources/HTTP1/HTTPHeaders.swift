/// Header fields in the order received or added; names compare case-insensitively.
///
/// The fields are kept as bytes in one buffer, not as two strings each: a request's fields are
/// stored as the parser found them, most are never read, and a string made for each would cost
/// a UTF-8 check (and often an allocation) per field on every request. A string is made only
/// for a value that is asked for.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// Each field's name and value, back to back, in order.
    private var bytes: [UInt8] = []
    /// Where each field lies in `bytes`: the name is `nameStart..<valueStart`, the value
    /// `valueStart..<valueEnd`.
    private var spans: [Span] = []

    private struct Span: Equatable {
        var nameStart: Int
        var valueStart: Int
        var valueEnd: Int
    }

    public init() {}

    public init(_ fields: [(String, String)]) {
        for (name, value) in fields { add(name: name, value: value) }
    }

    /// Equal when they read the same: the same names and values, as strings, in the same
    /// order (a value received as bytes that are not UTF-8 equals its repair).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        (lhs.bytes == rhs.bytes && lhs.spans == rhs.spans)
            || lhs.elementsEqual(rhs) { $0.name == $1.name && $0.value == $1.value }
    }

    public var count: Int { spans.count }

    public func makeIterator() -> Iterator { Iterator(headers: self) }

    /// The fields as strings, in order.
    public struct Iterator: IteratorProtocol {
        let headers: HTTPHeaders
        var index = 0

        public mutating func next() -> (name: String, value: String)? {
            guard index < headers.spans.count else { return nil }
            defer { index += 1 }
            return (headers.name(at: index), headers.value(at: index))
        }
    }

    /// Room for `fields` fields whose names and values total `bytes` bytes.
    public mutating func reserveCapacity(fields: Int, bytes: Int) {
        spans.reserveCapacity(fields)
        self.bytes.reserveCapacity(bytes)
    }

    /// Appends a field, keeping any with the same name.
    public mutating func add(name: String, value: String) {
        var name = name
        var value = value
        name.withUTF8 { name in value.withUTF8 { value in add(name: name, value: value) } }
    }

    /// Appends a field from its bytes (the parser's path: no string is made).
    mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name)
        let valueStart = bytes.count
        bytes.append(contentsOf: value)
        spans.append(Span(nameStart: nameStart, valueStart: valueStart, valueEnd: bytes.count))
    }

    /// Replaces every field named `name` with one field.
    public mutating func replace(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) {
        guard contains(name) else { return }
        var kept = HTTPHeaders()
        bytes.withUnsafeBufferPointer { bytes in
            for (index, span) in spans.enumerated() where !nameEquals(at: index, name) {
                kept.add(name: UnsafeBufferPointer(rebasing: bytes[span.nameStart..<span.valueStart]),
                         value: UnsafeBufferPointer(rebasing: bytes[span.valueStart..<span.valueEnd]))
            }
        }
        self = kept
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        firstIndex(of: name).map(value(at:))
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        spans.indices.filter { nameEquals(at: $0, name) }.map(value(at:))
    }

    public func contains(_ name: String) -> Bool { firstIndex(of: name) != nil }

    /// Each field as a `name: value` line (RFC 9112 §5), for the response encoder.
    func writeFieldLines(into output: inout [UInt8]) {
        // Over the buffer's pointer: an array slice appended is a retain and a release each.
        bytes.withUnsafeBufferPointer { bytes in
            for span in spans {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[span.nameStart..<span.valueStart]))
                output.append(.colon)
                output.append(.space)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[span.valueStart..<span.valueEnd]))
                output.append(.cr)
                output.append(.lf)
            }
        }
    }

    private func firstIndex(of name: String) -> Int? {
        spans.indices.first { nameEquals(at: $0, name) }
    }

    private func name(at index: Int) -> String {
        String(decoding: bytes[spans[index].nameStart..<spans[index].valueStart], as: UTF8.self)
    }

    private func value(at index: Int) -> String {
        String(decoding: bytes[spans[index].valueStart..<spans[index].valueEnd], as: UTF8.self)
    }

    /// ASCII case-insensitive comparison of field `index`'s name (names are ASCII tokens).
    private func nameEquals(at index: Int, _ name: String) -> Bool {
        let span = spans[index]
        guard span.valueStart - span.nameStart == name.utf8.count else { return false }
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { stored in
                var offset = 0
                for byte in wanted {
                    guard Self.lowercased(stored[span.nameStart + offset]) == Self.lowercased(byte) else { return false }
                    offset += 1
                }
                return true
            }
        }
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
