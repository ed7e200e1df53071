/// Header fields in the order received or added; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends a field, keeping any with the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func replace(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) {
        fields.removeAll { Self.namesEqual($0.name, name) }
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        // Over indices: a closure over the elements would copy (and retain) every field.
        for index in fields.indices where Self.namesEqual(fields[index].name, name) {
            return fields[index].value
        }
        return nil
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// ASCII case-insensitive comparison (header names are ASCII tokens).
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // Native strings (all of ours) lend their bytes without a copy of either string.
        let equal = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in a.elementsEqual(b) { lowercased($0) == lowercased($1) } }
        }
        return (equal ?? nil) ?? a.utf8.elementsEqual(b.utf8) { lowercased($0) == lowercased($1) }
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
