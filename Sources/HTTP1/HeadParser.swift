import Glibc

/// Parses a complete request head (request line and field lines, CRLF-separated, without the
/// final empty line) according to RFC 9112 §3 and §5, strictly.
struct HeadParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: HTTPLimits

    /// Reads the field lines; `requestLine` is the first line, judged when it arrived.
    func parse(requestLine: RequestLine) throws(HTTPParseError) -> (head: HTTPRequestHead, framing: BodyFraming) {
        var lines = LineIterator(bytes: bytes)
        guard let firstLine = try lines.next() else { throw .bad("The request line is missing.") }
        var head = HTTPRequestHead(method: requestLine.method, target: requestLine.target, minorVersion: requestLine.minorVersion)
        var headerBytes = firstLine.count + 2
        var facts = FieldFacts()
        // The field lines are copied once, each field's name and value then named by offsets.
        let linesStart = lines.position
        head.headers = HTTPHeaders(lines: UnsafeBufferPointer(rebasing: bytes[linesStart...]), fieldCapacity: 12)
        while let line = try lines.next() {
            headerBytes += line.count + 2
            guard headerBytes <= limits.maxHeaderBytes else { throw HTTPRequestParser.headTooLong(limits) }
            guard head.headers.count < limits.maxHeaderCount else {
                throw HTTPParseError(status: 431, reason: "The request has more than \(limits.maxHeaderCount) header fields.")
            }
            let (name, value) = try Self.field(line)
            facts.note(name: name, value: value)
            head.headers.addField(name: (name.startIndex - linesStart)..<(name.endIndex - linesStart),
                                  value: (value.startIndex - linesStart)..<(value.endIndex - linesStart))
        }
        try facts.apply(to: &head)
        // Judged before the head goes into the result, which would otherwise be a copy of it.
        let framing = try facts.framing(minorVersion: head.minorVersion, limits: limits)
        return (head, framing)
    }

    /// `field-name ":" OWS field-value OWS`; no whitespace before the colon, no obs-fold.
    /// Returns the name and the trimmed value.
    static func field(_ line: HeadBytes) throws(HTTPParseError) -> (name: HeadBytes, value: HeadBytes) {
        // Over the base buffer: a slice's subscript checks its bounds on every byte.
        let bytes = line.base
        guard let first = line.first else { throw .bad("Empty header line.") }
        if first == .space || first == .tab { throw .bad("Obsolete line folding (obs-fold) is not accepted.") }
        var colon = line.startIndex
        while colon < line.endIndex, isTokenByte(bytes[colon]) { colon += 1 }
        guard colon > line.startIndex, colon < line.endIndex, bytes[colon] == .colon else {
            guard line[colon...].contains(.colon) else { throw .bad("A header line has no colon.") }
            throw .bad("A header name is empty or contains invalid characters (whitespace before ':' is not allowed).")
        }
        let name = line[line.startIndex..<colon]
        let value = trimmingOWS(line[(colon + 1)...])
        guard isFieldValue(UnsafeBufferPointer(rebasing: value)) else {
            throw .bad("Header '\(String(decoding: name, as: UTF8.self))' contains control characters.")
        }
        return (name, value)
    }

    /// Whether every byte is field-vchar, SP, HTAB or obs-text (RFC 9110 §5.5). Values are
    /// most of a head's bytes, so they are read eight at a time: a word with no byte below
    /// 0x20 and none equal to 0x7F needs no closer look (the exact tests of Hacker's Delight
    /// §6-1, "hasless" and "haszero"); from the first word that does, byte by byte.
    static func isFieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        allBytesValid(bytes) { word in
            let hasControl = (word &- wordOnes &* 0x20) & ~word & wordHighBits
            let delete = word ^ (wordOnes &* 0x7F)
            let hasDelete = (delete &- wordOnes) & ~delete & wordHighBits
            return hasControl | hasDelete != 0
        } byteIsValid: { $0 >= .space ? $0 != 0x7F : $0 == .tab }
    }

    /// Without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    static func trimmingOWS<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes where Bytes.SubSequence == Bytes {
        var bytes = bytes
        while let first = bytes.first, first == .space || first == .tab { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == .space || last == .tab { bytes = bytes.dropLast() }
        return bytes
    }

    /// tchar (RFC 9110 §5.6.2): `!#$%&'*+-.^_`|~`, digits and letters, as a bit set over the
    /// 128 ASCII bytes (one shift a byte instead of a switch); every byte is tested in
    /// HTTPRequestParserTests.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        let below64: UInt64 = 0x03FF_6CFA_0000_0000
        let from64: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        if byte < 64 { return below64 >> byte & 1 == 1 }
        if byte < 128 { return from64 >> (byte - 64) & 1 == 1 }
        return false
    }
}

typealias HeadBytes = Slice<UnsafeBufferPointer<UInt8>>

/// Splits a head into CRLF-terminated lines; a bare CR is an error here, and a bare LF (or
/// CR) inside a line fails the line's own character checks.
struct LineIterator {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    mutating func next() throws(HTTPParseError) -> HeadBytes? {
        guard position < bytes.count else { return nil }
        let end = bytes.firstIndex(of: .cr, from: position)
        let line = bytes[position..<end]
        if end < bytes.count {
            guard end + 1 < bytes.count, bytes[end + 1] == .lf else {
                throw .bad("A bare CR or LF appears in the request head.")
            }
            position = end + 2
        } else {
            position = end
        }
        return line
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The index of the first `byte` at or after `start`, or `count`: memchr(3), which reads
    /// many bytes at a time, for the scans every request's head goes through.
    func firstIndex(of byte: UInt8, from start: Int, to end: Int? = nil) -> Int {
        let end = end ?? count
        guard start < end, let base = baseAddress, let found = memchr(base + start, Int32(byte), end - start) else {
            return Swift.max(start, end)
        }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (optional whitespace, RFC 9110 §5.6.3).
    public var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
