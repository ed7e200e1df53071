import CZlib

/// gzip bodies: iOS compresses fetch and real-time requests (spec §1.5).
enum Gzip {
    struct Error: Swift.Error {
        let message: String
    }

    /// True when `bytes` start with the gzip magic `1f 8b`, whatever the headers claim.
    static func isCompressed(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Inflates a gzip member; refuses output beyond `limit` bytes (a gzip bomb is a 413).
    static func inflate(_ input: [UInt8], limit: Int) throws(Error) -> [UInt8] {
        var stream = z_stream()
        // 16 + MAX_WBITS: expect a gzip header and trailer, not raw zlib.
        guard rcs_inflate_init2(&stream, 16 + MAX_WBITS) == Z_OK else { throw Error(message: "inflateInit2 failed") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var input = input
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            while true {
                let result: Int32 = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return Z_BUF_ERROR }
                if result == Z_STREAM_END { return Z_STREAM_END }
                if result != Z_OK { return result }
                if stream.avail_in == 0, produced == 0 { return Z_DATA_ERROR }
            }
        }
        if output.count > limit { throw Error(message: "The decompressed body is larger than \(limit) bytes.") }
        guard status == Z_STREAM_END else { throw Error(message: "The gzip body is corrupt or truncated.") }
        return output
    }
}
