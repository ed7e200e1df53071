import Glibc

/// A failed socket or epoll system call, with the `errno` read right after it.
public struct SocketError: Error, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `bind`.
    public let call: String
    public let errno: Int32

    init(_ call: String, errno: Int32 = Glibc.errno) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
