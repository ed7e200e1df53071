import CZlib

/// gzip-compresses test bodies, as the iOS SDK sends them.
public enum GzipWriter {
    public static func compress(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        guard rcs_deflate_init2(&stream, Z_DEFAULT_COMPRESSION, 16 + MAX_WBITS) == Z_OK else { throw TestFailure("deflateInit2") }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: input.count + 1024)
        var source = input
        let status = source.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw TestFailure("deflate \(status)") }
        return Array(output[0..<Int(stream.total_out)])
    }
}
