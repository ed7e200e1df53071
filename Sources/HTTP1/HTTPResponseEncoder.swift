import Glibc
import Synchronization

/// Writes response heads and chunks (RFC 9112 §4, §7.1).
public enum HTTPResponseEncoder {
    /// Writes the status line, `Date`, the given fields and, when `contentLength` is not nil,
    /// `Content-Length`; then the empty line.
    public static func writeHead(status: Int, headers: HTTPHeaders, contentLength: Int?, into bytes: inout [UInt8]) {
        writeStart(status: status, headers: headers, into: &bytes)
        writeEnd(contentLength: contentLength, into: &bytes)
    }

    /// The status line, `Date` and `headers`; more fields may follow with ``writeField(_:value:into:)``
    /// (so a connection adds its own without copying the response's header list), then ``writeEnd(contentLength:into:)``.
    public static func writeStart(status: Int, headers: HTTPHeaders, into bytes: inout [UInt8]) {
        appendStatusLine(status, to: &bytes)
        bytes.append(contentsOf: HTTPDate.current())
        headers.writeFieldLines(into: &bytes)
    }

    /// `headers` as field lines, to be written many times (see `HTTPResponse.encodedFields`).
    public static func encode(fields headers: HTTPHeaders) -> [UInt8] {
        var bytes: [UInt8] = []
        headers.writeFieldLines(into: &bytes)
        return bytes
    }

    /// A field whose name is a literal (its bytes are read from it, no string is asked).
    public static func writeField(_ name: StaticString, value: String, into bytes: inout [UInt8]) {
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(.colon)
        bytes.append(.space)
        append(value, to: &bytes)
        bytes.append(.cr)
        bytes.append(.lf)
    }

    /// `Content-Length` when given, then the empty line that ends the head.
    public static func writeEnd(contentLength: Int?, into bytes: inout [UInt8]) {
        if let contentLength {
            bytes.append(contentsOf: contentLengthName)
            appendDecimal(contentLength, to: &bytes)
            bytes.append(.cr)
            bytes.append(.lf)
        }
        bytes.append(.cr)
        bytes.append(.lf)
    }

    private static let contentLengthName = Array("Content-Length: ".utf8)

    /// `HTTP/1.1 <status> <reason phrase>` and CRLF.
    static func statusLine(_ status: Int) -> String {
        "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
    }

    /// The status line of `status` (any integer: one without a three-digit code is made as a string).
    static func appendStatusLine(_ status: Int, to bytes: inout [UInt8]) {
        guard status >= StatusLines.first, status <= StatusLines.last else {
            bytes.append(contentsOf: statusLine(status).utf8)
            return
        }
        statusLines.append(status, to: &bytes)
    }

    private static let statusLines = StatusLines()

    /// The status lines of every three-digit status, made once from ``statusLine(_:)`` and
    /// kept back to back: a response copies its line instead of building a string (an
    /// allocation and four appends per response otherwise).
    private struct StatusLines {
        static var first: Int { 100 }
        static var last: Int { 599 }
        let bytes: [UInt8]
        /// Where each line ends in `bytes`.
        let ends: [Int]

        init() {
            var bytes: [UInt8] = []
            var ends: [Int] = []
            for status in Self.first...Self.last {
                bytes.append(contentsOf: statusLine(status).utf8)
                ends.append(bytes.count)
            }
            self.bytes = bytes
            self.ends = ends
        }

        func append(_ status: Int, to output: inout [UInt8]) {
            let index = status - Self.first
            let range = (index == 0 ? 0 : ends[index - 1])..<ends[index]
            bytes.withUnsafeBufferPointer { output.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        }
    }

    /// The text's bytes in one copy (a native string's UTF-8 is contiguous).
    private static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `value` (non-negative) in decimal digits, without building a string.
    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// One chunk of a chunked body; an empty `chunk` writes nothing (it would end the body).
    public static func writeChunk(_ chunk: [UInt8], into bytes: inout [UInt8]) {
        guard !chunk.isEmpty else { return }
        bytes.append(contentsOf: String(chunk.count, radix: 16).utf8)
        bytes.append(.cr)
        bytes.append(.lf)
        bytes.append(contentsOf: chunk)
        bytes.append(.cr)
        bytes.append(.lf)
    }

    /// The last chunk, with no trailers.
    public static func writeLastChunk(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: "0\r\n\r\n".utf8)
    }

    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}

/// The `Date` header line, formatted at most once a second (IMF-fixdate, RFC 9110 §5.6.7).
enum HTTPDate {
    private static let cache = Mutex<(second: Int, line: [UInt8])>((-1, []))

    static func current() -> [UInt8] {
        var now = time(nil)
        let second = Int(now)
        return cache.withLock { cache in
            if cache.second != second {
                cache = (second, Array("Date: \(format(&now))\r\n".utf8))
            }
            return cache.line
        }
    }

    static func format(_ time: inout time_t) -> String {
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
