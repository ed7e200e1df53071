public import Foundation
import Glibc

/// A tiny HTTP/1.1 server on 127.0.0.1 (port 0) for transport tests: one thread accepts, one
/// thread per connection reads the request and hands it to the handler, which answers through
/// the connection (at once or later, for streams).
public final class LoopbackServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        public var body: Data
    }

    public let port: Int
    private let listener: Int32

    public init(handler: @escaping @Sendable (Request, LoopbackConnection) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread {
            while case let client = accept(fd, nil, nil), client >= 0 {
                Thread {
                    let connection = LoopbackConnection(fd: client)
                    if let request = connection.readRequest() { handler(request, connection) } else { connection.close() }
                }.start()
            }
            // Closed here, not in stop(): a number closed while accept() still used it could be
            // reused by another test's socket and accepted from.
            Glibc.close(fd)
        }.start()
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting (shutdown wakes the blocked accept); open connections stay until their
    /// handlers close them.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }
}

/// One accepted connection. Writes are used by one handler at a time.
public final class LoopbackConnection: Sendable {
    private let fd: Int32

    init(fd: Int32) {
        self.fd = fd
    }

    /// Reads the head and a `Content-Length` body.
    fileprivate func readRequest() -> LoopbackServer.Request? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator = Data("\r\n\r\n".utf8)
        while data.range(of: separator) == nil {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            data.append(contentsOf: buffer[0..<count])
        }
        let headEnd = data.range(of: separator)!
        let lines = String(decoding: data[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[headEnd.upperBound...])
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while body.count < length {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            body.append(contentsOf: buffer[0..<count])
        }
        return .init(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
    }

    public func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// A complete response; closes the connection.
    public func respond(status: Int, headers: [String: String] = [:], body: String) {
        let fields = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        write("HTTP/1.1 \(status) X\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\(fields)\r\n\(body)")
        close()
    }

    /// Starts a chunked 200 response; send `chunk`s, then `endChunks`.
    public func beginChunks() {
        write("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n")
    }

    public func chunk(_ text: String) {
        write(String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n")
    }

    public func endChunks() {
        write("0\r\n\r\n")
        close()
    }

    /// Blocks until the peer closes the connection.
    public func waitForPeerClose() {
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) > 0 {}
    }

    public func close() {
        Glibc.close(fd)
    }
}
