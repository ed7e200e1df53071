/// Header fields in the order received or added; names compare case-insensitively.
///
/// The fields are kept as bytes in one buffer, not as two strings each: a request's fields are
/// stored as the parser found them, most are never read, and a string made for each would cost
/// a UTF-8 check (and often an allocation) per field on every request. A string is made only
/// for a value that is asked for.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// The fields' names and values, in order: as field lines (`Name: value` CRLF) for fields
    /// added one by one, so a response's are written in one copy; a request's field lines as
    /// received (one copy), for fields the parser found.
    private var bytes: [UInt8] = []
    /// Where each field's name and value lie in `bytes`.
    private var spans: [Span] = []

    private struct Span: Equatable {
        var name: Range<Int>
        var value: Range<Int>
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

    /// Appends a field, keeping any with the same name.
    public mutating func add(name: String, value: String) {
        var name = name
        var value = value
        name.withUTF8 { name in value.withUTF8 { value in add(name: name, value: value) } }
    }

    /// Appends a field from its bytes.
    mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name)
        let nameEnd = bytes.count
        bytes.append(.colon)
        bytes.append(.space)
        let valueStart = bytes.count
        bytes.append(contentsOf: value)
        spans.append(Span(name: nameStart..<nameEnd, value: valueStart..<bytes.count))
        bytes.append(.cr)
        bytes.append(.lf)
    }

    /// Headers whose fields lie in `lines` (a request's field lines, copied once here), each
    /// then named by ``addField(name:value:)``: the parser's path, with no string made and one
    /// copy for all fields instead of two appends per field.
    init(lines: UnsafeBufferPointer<UInt8>, fieldCapacity: Int) {
        bytes = Array(lines)
        spans.reserveCapacity(fieldCapacity)
    }

    /// Appends the field whose name and value lie at these offsets of the lines given to
    /// ``init(lines:fieldCapacity:)``.
    mutating func addField(name: Range<Int>, value: Range<Int>) {
        spans.append(Span(name: name, value: value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func replace(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) {
        guard contains(name) else { return }
        var kept = HTTPHeaders()
        let matching = indices(named: name)
        bytes.withUnsafeBufferPointer { bytes in
            for (index, span) in spans.enumerated() where !matching.contains(index) {
                kept.add(name: UnsafeBufferPointer(rebasing: bytes[span.name]), value: UnsafeBufferPointer(rebasing: bytes[span.value]))
            }
        }
        self = kept
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        firstIndex(of: name).map(value(at:))
    }

    /// The first value of `name` lent as bytes to `body`, or nil without one: a value that is
    /// only compared needs no string.
    public func withValue<Result>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard let index = firstIndex(of: name) else { return nil }
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[spans[index].value])) }
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        indices(named: name).map(value(at:))
    }

    public func contains(_ name: String) -> Bool { firstIndex(of: name) != nil }

    /// Each field as a `name: value` line (RFC 9112 §5), for the response encoder.
    func writeFieldLines(into output: inout [UInt8]) {
        guard !bytesAreFieldLines else { return output.append(contentsOf: bytes) }
        // Over the buffer's pointer: an array slice appended is a retain and a release each.
        bytes.withUnsafeBufferPointer { bytes in
            for span in spans {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[span.name]))
                output.append(.colon)
                output.append(.space)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[span.value]))
                output.append(.cr)
                output.append(.lf)
            }
        }
    }

    /// Whether `bytes` is exactly the fields' lines in order, `Name: value` CRLF each (always
    /// so for fields added one by one): a check of a few bytes a field, where writing them
    /// piece by piece costs a hundred instructions a field. Not a stored flag: a parser with its
    /// headers is kept for every idle connection, and its size is budgeted.
    private var bytesAreFieldLines: Bool {
        var next = 0
        for span in spans {
            guard span.name.lowerBound == next, span.value.lowerBound == span.name.upperBound + 2,
                  span.value.upperBound + 2 <= bytes.count, bytes[span.name.upperBound] == .colon,
                  bytes[span.name.upperBound + 1] == .space, bytes[span.value.upperBound] == .cr,
                  bytes[span.value.upperBound + 1] == .lf else { return false }
            next = span.value.upperBound + 2
        }
        return next == bytes.count
    }

    private func firstIndex(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { stored in
                for index in spans.indices where Self.name(spans[index].name, in: stored, is: wanted) { return index }
                return nil
            }
        }
    }

    private func indices(named name: String) -> [Int] {
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { stored in spans.indices.filter { Self.name(spans[$0].name, in: stored, is: wanted) } }
        }
    }

    /// Whether the name at `span` of `stored` is `wanted`, ASCII case-insensitively (names are
    /// ASCII tokens). Callers lend the buffers once for a whole scan, not once per field.
    @inline(__always)
    private static func name(_ span: Range<Int>, in stored: UnsafeBufferPointer<UInt8>, is wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard span.count == wanted.count else { return false }
        for offset in 0 ..< wanted.count where lowercased(stored[span.lowerBound + offset]) != lowercased(wanted[offset]) {
            return false
        }
        return true
    }

    private func name(at index: Int) -> String {
        String(decoding: bytes[spans[index].name], as: UTF8.self)
    }

    private func value(at index: Int) -> String {
        String(decoding: bytes[spans[index].value], as: UTF8.self)
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
