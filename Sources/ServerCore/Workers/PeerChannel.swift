import ConfigCore
import CLinuxIO
package import ConfigStore
import Glibc

/// What workers of one group tell each other.
enum PeerMessage: Equatable {
    /// A version was committed: peers reload it and notify their held streams.
    case published(TemplateKey, version: Int64)
    /// `from` asks for its numbers; it waits for one `answer` with the same id from each peer.
    case question(from: Int, id: UInt64, PeerQuestion)
    case answer(from: Int, id: UInt64, payload: [UInt8])

    /// Lines of text; the answer's payload is everything after its third line.
    var encoded: [UInt8] {
        switch self {
        case .published(let key, let version):
            Array("published\n\(key.project)\n\(key.namespace.rawValue)\n\(version)".utf8)
        case .question(let from, let id, .metrics):
            Array("metrics?\n\(from)\n\(id)".utf8)
        case .question(let from, let id, .adoption(let key)):
            Array("adoption?\n\(from)\n\(id)\n\(key.project)\n\(key.namespace.rawValue)".utf8)
        case .answer(let from, let id, let payload):
            Array("answer\n\(from)\n\(id)\n".utf8) + payload
        }
    }

    init?(_ bytes: ArraySlice<UInt8>) {
        let parts = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let kind = String(decoding: parts[0], as: UTF8.self)
        if kind == "published" {
            guard parts.count == 4, let version = Int64(String(decoding: parts[3], as: UTF8.self)) else { return nil }
            guard let namespace = TemplateNamespace(rawValue: String(decoding: parts[2], as: UTF8.self)) else { return nil }
            let key = TemplateKey(project: String(decoding: parts[1], as: UTF8.self), namespace: namespace)
            self = .published(key, version: version)
            return
        }
        guard let from = Int(String(decoding: parts[1], as: UTF8.self)),
              let id = UInt64(String(decoding: parts[2], as: UTF8.self)) else { return nil }
        switch kind {
        case "metrics?" where parts.count == 3:
            self = .question(from: from, id: id, .metrics)
        case "adoption?" where parts.count == 4:
            let key = parts[3].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            guard key.count == 2, let namespace = TemplateNamespace(rawValue: String(decoding: key[1], as: UTF8.self))
            else { return nil }
            let head = TemplateKey(project: String(decoding: key[0], as: UTF8.self), namespace: namespace)
            self = .question(from: from, id: id, .adoption(head))
        case "answer":
            self = .answer(from: from, id: id, payload: parts.count == 4 ? Array(parts[3]) : [])
        default:
            return nil
        }
    }
}

/// What one worker can ask the others.
package enum PeerQuestion: Equatable {
    /// Their `/metrics` exposition.
    case metrics
    /// Their held streams and recent fetches per version of one template.
    case adoption(TemplateKey)
}

/// The worker's datagram socket in the abstract Unix namespace (`rcs-<group>-w<i>`): no files,
/// gone with the processes. A lost publish datagram is caught by the store poll that every
/// worker also runs; a lost question or answer makes a gather end at its deadline.
package final class PeerChannel: @unchecked Sendable {
    // @unchecked: every field is immutable, and the bytes behind `buffer` are written only by
    // `drain()`, whose one caller is the loop's readable watcher on `fd` (`ChangeFeed`).
    let fd: Int32
    package let worker: Int
    let workers: Int
    private let group: String
    /// Large enough for any datagram the kernel lets a peer send (bounded by its send buffer).
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 8)

    package init(group: String, worker: Int, workers: Int) throws {
        fd = rcs_dgram_bind(Self.name(group: group, worker: worker))
        guard fd >= 0 else { throw ConfigurationError("cannot bind the worker notification socket (errno \(errno))") }
        self.group = group
        self.worker = worker
        self.workers = workers
    }

    deinit { buffer.deallocate() }

    static func name(group: String, worker: Int) -> String { "rcs-\(group)-w\(worker)" }

    var peers: [Int] { (0..<workers).filter { $0 != worker } }

    /// Sends `message` to every other worker.
    func broadcast(_ message: PeerMessage) {
        let bytes = message.encoded
        for peer in peers { send(bytes, to: peer) }
    }

    func send(_ message: PeerMessage, to peer: Int) {
        send(message.encoded, to: peer)
    }

    private func send(_ bytes: [UInt8], to peer: Int) {
        _ = bytes.withUnsafeBytes { rcs_dgram_send(fd, Self.name(group: group, worker: peer), $0.baseAddress, $0.count) }
    }

    /// Abstract socket names carry no permissions, so a sender index outside the group (whose
    /// name anyone could bind) is never answered or trusted.
    private func isFromPeer(_ message: PeerMessage) -> Bool {
        switch message {
        case .published: true
        case .question(let from, _, _), .answer(let from, _, _): from != worker && (0..<workers).contains(from)
        }
    }

    /// Reads every waiting message (loop thread).
    func drain() -> [PeerMessage] {
        var received: [PeerMessage] = []
        while true {
            let count = rcs_recv(fd, buffer.baseAddress, buffer.count)
            guard count > 0 else { break }
            if let message = PeerMessage(ArraySlice(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))),
               isFromPeer(message) {
                received.append(message)
            }
        }
        return received
    }
}
