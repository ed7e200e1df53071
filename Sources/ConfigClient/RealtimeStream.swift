import Foundation

/// One message of the real-time stream.
public struct InvalidationMessage: Sendable, Equatable, Decodable {
    /// The newest template version; fetch when it is above the last fetched one.
    public var latestTemplateVersionNumber: Int64?
    /// Real-time is turned off for this client (only `true` is meaningful).
    public var featureDisabled: Bool
    /// Do not reconnect before this many seconds.
    public var retryIntervalSeconds: Int?

    /// - Parameters:
    ///   - latestTemplateVersionNumber: the newest template version.
    ///   - featureDisabled: whether real-time is off.
    ///   - retryIntervalSeconds: minimum wait before reconnecting.
    public init(latestTemplateVersionNumber: Int64? = nil, featureDisabled: Bool = false, retryIntervalSeconds: Int? = nil) {
        self.latestTemplateVersionNumber = latestTemplateVersionNumber
        self.featureDisabled = featureDisabled
        self.retryIntervalSeconds = retryIntervalSeconds
    }

    private enum CodingKeys: String, CodingKey {
        case latestTemplateVersionNumber, featureDisabled, retryIntervalSeconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        latestTemplateVersionNumber = try container.decodeIfPresent(JSONInt64.self, forKey: .latestTemplateVersionNumber)?.value
        featureDisabled = try container.decodeIfPresent(Bool.self, forKey: .featureDisabled) ?? false
        retryIntervalSeconds = try container.decodeIfPresent(JSONInt64.self, forKey: .retryIntervalSeconds).map { Int(clamping: $0.value) }
    }
}

/// Why the stream's bytes could not be read as messages.
public struct InvalidationStreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset in the stream where the offending message starts.
    public var offset: Int
    /// What is wrong with the message.
    public var message: String

    public var description: String { "real-time stream, message at byte \(offset): \(message)" }
}

/// Cuts the real-time stream into messages. Chunk boundaries carry no meaning: a message may
/// arrive split over many chunks, several may share one. Each message is a JSON object; text
/// between objects (newlines, the `[` and `,` of an array framing) is skipped. Braces inside
/// JSON strings are not counted.
public struct InvalidationStreamParser: Sendable {
    private var buffer: [UInt8] = []
    /// Stream offset of `buffer[0]`.
    private var bufferOffset = 0
    /// Next byte of `buffer` to scan.
    private var scanIndex = 0
    /// Start of the object being read, or `nil` between objects.
    private var objectStart: Int?
    private var depth = 0
    private var inString = false
    private var escaped = false
    private let maximumMessageSize: Int

    /// - Parameter maximumMessageSize: longest message accepted, in bytes.
    public init(maximumMessageSize: Int = 64 * 1024) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Adds received bytes and returns the messages they complete, in order.
    /// - Throws: ``InvalidationStreamError`` for a message that is not a JSON object of the
    ///   documented fields, or one longer than the maximum size.
    public mutating func append(_ bytes: some Sequence<UInt8>) throws(InvalidationStreamError) -> [InvalidationMessage] {
        buffer.append(contentsOf: bytes)
        var messages: [InvalidationMessage] = []
        while scanIndex < buffer.count {
            let byte = buffer[scanIndex]
            scanIndex += 1
            guard let start = objectStart else {
                if byte == UInt8(ascii: "{") {
                    objectStart = scanIndex - 1
                    depth = 1
                }
                continue
            }
            if let end = scan(byte) {
                // Cleared first so that the parser can go on after a message that fails to decode.
                objectStart = nil
                messages.append(try decode(start..<end, at: bufferOffset + start))
            }
        }
        try compact()
        return messages
    }

    /// Tracks nesting; returns the end index when `byte` closes the outermost object.
    private mutating func scan(_ byte: UInt8) -> Int? {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return nil
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"): depth += 1
        case UInt8(ascii: "}"):
            depth -= 1
            if depth == 0 { return scanIndex }
        default: break
        }
        return nil
    }

    private func decode(_ range: Range<Int>, at offset: Int) throws(InvalidationStreamError) -> InvalidationMessage {
        do {
            return try JSONDecoder().decode(InvalidationMessage.self, from: Data(buffer[range]))
        } catch {
            throw InvalidationStreamError(offset: offset, message: DecodingErrorDescription.describe(error))
        }
    }

    /// Drops consumed bytes so the buffer holds at most the object being read.
    private mutating func compact() throws(InvalidationStreamError) {
        let keepFrom = objectStart ?? scanIndex
        if keepFrom > 0 {
            buffer.removeFirst(keepFrom)
            bufferOffset += keepFrom
            scanIndex -= keepFrom
            objectStart = objectStart.map { $0 - keepFrom }
        }
        if objectStart != nil, buffer.count > maximumMessageSize {
            throw InvalidationStreamError(offset: bufferOffset, message: "longer than \(maximumMessageSize) bytes without a closing brace")
        }
    }
}
