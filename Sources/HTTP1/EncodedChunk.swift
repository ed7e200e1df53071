/// One chunk of a chunked response body, framed once (`size CRLF data CRLF`) so the same
/// message can be written to many streams without re-encoding it for each.
public struct EncodedChunk: Sendable {
    /// The framed bytes, ready for the socket.
    public let bytes: [UInt8]
    /// Where the payload lies in `bytes`, for a body without chunked coding (HTTP/1.0).
    private let payloadRange: Range<Int>

    /// The message itself, without its framing.
    public var payload: ArraySlice<UInt8> { bytes[payloadRange] }

    /// Frames `payload`, which must not be empty (an empty chunk would end the body).
    public init(_ payload: [UInt8]) {
        precondition(!payload.isEmpty, "an empty chunk ends a chunked body")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 12)
        HTTPResponseEncoder.writeChunk(payload, into: &bytes)
        self.bytes = bytes
        payloadRange = (bytes.count - 2 - payload.count)..<(bytes.count - 2)
    }
}
