import Foundation
import Glibc

/// The few socket calls the test proxies make, on 127.0.0.1.
enum LoopbackSocket {
    /// A listening socket on a free port.
    static func listen() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, Glibc.listen(fd, 64) == 0 else { throw ProxyError("cannot listen (errno \(errno))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A connected socket, or nil.
    static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Accepts clients on `listener` until it is closed, connecting each to
    /// `127.0.0.1:upstreamPort` and handing both sockets to `carry` (a client whose upstream
    /// refuses is closed).
    static func acceptLoop(_ listener: Int32, upstreamPort: Int, carry: (_ client: Int32, _ upstream: Int32) -> Void) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { if errno == EINTR { continue } else { return } }
            guard let upstream = connect(port: upstreamPort) else {
                close(client)
                continue
            }
            carry(client, upstream)
        }
    }

    /// Writes every byte; false when the peer is gone.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// `url` (a `scheme://user@host:port/path` URL) pointing at 127.0.0.1:`port`.
    static func url(_ url: String, port: Int) throws -> String {
        guard var components = URLComponents(string: url) else { throw ProxyError("not a URL: \(url)") }
        components.host = "127.0.0.1"
        components.port = port
        return try components.string ?? { throw ProxyError("cannot rewrite \(url)") }()
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }
}
