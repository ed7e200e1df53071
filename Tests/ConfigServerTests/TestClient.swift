import CLinuxIO
import Foundation
import Glibc
import TestSupport

/// A parsed HTTP response.
struct TestResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(text)")
        }
        return object
    }

    /// `error.status` of a Google error body.
    var errorStatus: String? {
        ((try? json())?["error"] as? [String: Any])?["status"] as? String
    }
}

/// A blocking loopback HTTP/1.1 client that speaks raw bytes, so tests control every byte.
final class TestClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// - Parameter tinyReceiveBuffer: Have the kernel keep as little unread input as it allows
    ///   (set before connecting, so the advertised window is small too): a client that stops
    ///   reading then fills its connection after a few kilobytes.
    init(port: Int, timeoutSeconds: Int = 10, tinyReceiveBuffer: Bool = false) throws {
        fd = tinyReceiveBuffer ? Self.connectWithTinyReceiveBuffer(port: port) : rcs_connect_tcp("127.0.0.1", Int32(port))
        guard fd >= 0 else { throw TestFailure("connect failed: errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    private static func connectWithTinyReceiveBuffer(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var size: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    static func format(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { text += "Content-Length: \(body.count)\r\n" }
        return Array((text + "\r\n").utf8) + body
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw TestFailure("send failed: errno \(errno)") }
            offset += sent
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Makes the close in `deinit` abortive: the server sees a reset (RST), not an end of input.
    func resetOnClose() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Half-closes: the server reads the end of input after what was sent.
    func finishSending() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw TestFailure("recv failed or timed out: errno \(errno)") }
        if count == 0 { return false }
        buffer += chunk[0..<count]
        return true
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")), index > 0, buffer[index - 1] == UInt8(ascii: "\r") {
                let line = String(decoding: buffer[0..<index - 1], as: UTF8.self)
                buffer.removeFirst(index + 1)
                return line
            }
            guard try fill() else { throw TestFailure("connection closed mid-line") }
        }
    }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestFailure("connection closed mid-body") }
        }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads the head; the body is read by the caller for streams.
    func readHead() throws -> TestResponse {
        var status = try readLine()
        while status.hasPrefix("HTTP/1.1 100") {
            _ = try readLine()
            status = try readLine()
        }
        let parts = status.split(separator: " ")
        guard parts.count >= 2, let code = Int(parts[1]) else { throw TestFailure("bad status line: \(status)") }
        var headers: [(String, String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            let pair = line.split(separator: ":", maxSplits: 1)
            headers.append((String(pair[0]), pair.count > 1 ? pair[1].trimmingCharacters(in: .whitespaces) : ""))
        }
        return TestResponse(status: code, headers: headers, body: [])
    }

    /// Reads a whole response (fixed length, or chunked to its end).
    func readResponse(head: Bool = false) throws -> TestResponse {
        var response = try readHead()
        if head { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try readBytes(length)
        } else if response.header("Transfer-Encoding") == "chunked" {
            while let chunk = try readChunk() { response.body += chunk }
        }
        return response
    }

    /// The next chunk of a chunked body, or nil after the last chunk.
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine, radix: 16) else { throw TestFailure("bad chunk size: \(sizeLine)") }
        if size == 0 {
            _ = try readLine()
            return nil
        }
        let data = try readBytes(size)
        _ = try readBytes(2)
        return data
    }

    /// Bytes up to and including the next `delimiter`: a message of a body without framing.
    func readThrough(_ delimiter: UInt8) throws -> [UInt8] {
        while true {
            if let index = buffer.firstIndex(of: delimiter) { return try readBytes(index + 1) }
            guard try fill() else { throw TestFailure("connection closed before \(delimiter)") }
        }
    }

    /// True once the server has closed the connection (reads to the end).
    func isClosedByServer() -> Bool {
        while true {
            guard let more = try? fill() else { return false }
            if !more { return true }
        }
    }
}
