import CLinuxIO
import ConfigStore
import Glibc

/// Tells the other workers of the group that a version was published, over datagram sockets
/// in the abstract Unix namespace (`rcs-<group>-w<i>`): no files, gone with the processes.
/// A lost datagram is caught by the store poll that every worker also runs.
final class PeerNotifier: Sendable {
    let fd: Int32
    private let peerNames: [String]

    init(group: String, worker: Int, workers: Int) throws {
        fd = rcs_dgram_bind(Self.name(group: group, worker: worker))
        guard fd >= 0 else { throw ConfigurationError("cannot bind the worker notification socket (errno \(errno))") }
        peerNames = (0..<workers).filter { $0 != worker }.map { Self.name(group: group, worker: $0) }
    }

    static func name(group: String, worker: Int) -> String { "rcs-\(group)-w\(worker)" }

    /// Sends `project\nnamespace\nversion` to every other worker.
    func broadcast(_ key: HeadKey, version: Int64) {
        let message = Array("\(key.project)\n\(key.namespace)\n\(version)".utf8)
        for name in peerNames {
            _ = message.withUnsafeBytes { rcs_dgram_send(fd, name, $0.baseAddress, $0.count) }
        }
    }

    /// Reads every waiting notification (loop thread).
    func drain() -> [(HeadKey, Int64)] {
        var received: [(HeadKey, Int64)] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { rcs_recv(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            let parts = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n")
            if parts.count == 3, let version = Int64(parts[2]) {
                received.append((HeadKey(project: String(parts[0]), namespace: String(parts[1])), version))
            }
        }
        return received
    }
}
