public import Foundation
import Glibc
import Synchronization

/// A TCP link on loopback between clients and one upstream server whose condition a test
/// changes while connections are open: healthy, silent (every byte held in both directions and
/// nothing reset, the way a firewall that drops packets, a dead host or a split network
/// behaves; held bytes go on, in order, once the link heals, as TCP's retransmissions would
/// bring them), or slow and lossy (each chunk delayed, and a share of them held a further
/// retransmission time, in order). `reset()` ends every connection with a reset instead;
/// `vanish()` abandons every connection open, forwarding and closing nothing of it again, as
/// when the client's host is gone with its kernel's state.
/// With `onlyConnectionsSending`, the condition applies to chosen connections only (a node's
/// PostgreSQL listener, say), and the others stay healthy.
///
/// The stand-in for a network namespace and `tc netem` where a test cannot make them: what a
/// client sees is the same (no answer, then the answers late), with no privileges needed.
public final class FaultyLink: @unchecked Sendable {
    // @unchecked: `listener` is set once in init; each connection's descriptors belong to its
    // four threads (the last to end closes them); the rest is guarded by `condition`.
    public enum State: Sendable, Equatable, CustomStringConvertible {
        case healthy
        /// Nothing passes; what was sent waits for the link to heal.
        case silent
        /// Each chunk waits `delay`; `lossPercent` of them wait a further time drawn from
        /// `retransmission` (each its own draw, as retransmission timers back off differently).
        case degraded(delay: Duration, lossPercent: Int,
                      retransmission: ClosedRange<Duration> = .milliseconds(200) ... .milliseconds(200))

        public var description: String {
            switch self {
            case .healthy: "healthy"
            case .silent: "silent"
            case .degraded(let delay, let loss, let retransmission):
                "delay \(delay), loss \(loss) % held \(retransmission.lowerBound)–\(retransmission.upperBound)"
            }
        }
    }

    public let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    private let condition = NSCondition()
    private var state = State.healthy
    private var random: SplitMix64
    private var descriptors = Set<Int32>()
    /// The connections open now, by their client's descriptor.
    private var connections: [Int32: OpenConnection] = [:]
    /// Bytes whose passage from a client silences the link (before they go on).
    private var silencingMarker: [UInt8]?
    /// Bytes that choose the connections the link's condition applies to (all without).
    private let marker: [UInt8]?
    private let stopped = Atomic(false)

    /// Listens on 127.0.0.1 (any free port) and forwards to `127.0.0.1:upstreamPort`.
    /// - Parameters:
    ///   - seed: chooses which chunks a lossy link holds back.
    ///   - marker: when given, the link's condition applies only to the connections whose client
    ///     sends these bytes in its first two chunks (a PostgreSQL startup message naming an
    ///     `application_name`, after the SSL request); the others pass as a healthy link.
    public init(upstreamPort: Int, seed: UInt64 = 1, onlyConnectionsSending marker: String? = nil) throws {
        self.upstreamPort = upstreamPort
        random = SplitMix64(seed: seed)
        self.marker = marker.map { Array($0.utf8) }
        (listener, port) = try LoopbackSocket.listen()
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// `url` pointing at this link instead of the server.
    public func url(replacingPortOf url: String) throws -> String {
        try LoopbackSocket.url(url, port: port)
    }

    /// The link's condition from now on; a healed link delivers what it held.
    public func set(_ newState: State) {
        condition.withLock {
            state = newState
            condition.broadcast()
        }
    }

    /// Silences the link the moment a client sends `marker` (a statement's text, say), so that
    /// those bytes and everything after them are held: a link that dies at an exact point.
    public func silence(whenClientSends marker: String) {
        condition.withLock { silencingMarker = Array(marker.utf8) }
    }

    /// Ends every open connection with a reset (RST), as a restarted router or a killed peer
    /// would; new connections are accepted.
    public func reset() {
        condition.withLock {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            for fd in descriptors {
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                shutdown(fd, Int32(SHUT_RDWR))
            }
        }
    }

    /// Abandons every connection open now: nothing more of it is passed on in either direction
    /// and neither end is closed or reset until `stop()`, so the server keeps its side open
    /// (no FIN, no RST), as when the client's host vanished with its kernel's state; the link is
    /// healthy for new connections.
    public func vanish() {
        condition.withLock {
            for connection in connections.values { connection.abandoned = true }
            state = .healthy
            condition.broadcast()
        }
    }

    /// Closes the listening socket and every connection.
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        set(.healthy)
        condition.withLock { for fd in descriptors { shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    private func acceptLoop() {
        LoopbackSocket.acceptLoop(listener, upstreamPort: upstreamPort) { client, upstream in
            let connection = OpenConnection()
            condition.withLock {
                descriptors.formUnion([client, upstream])
                connections[client] = connection
            }
            let ends = PumpCount()
            let chosen = ConnectionChoice(chosen: marker == nil)
            let finished: @Sendable () -> Void = { [self] in
                guard ends.ended() else { return }
                condition.withLock {
                    descriptors.subtract([client, upstream])
                    connections[client] = nil
                }
                close(client)
                close(upstream)
            }
            for (source, destination) in [(client, upstream), (upstream, client)] {
                Thread { [self] in
                    carry(from: source, to: destination, fromClient: source == client, chosen: chosen, connection: connection)
                    finished()
                }.start()
            }
        }
    }

    /// One direction: a reader queues each chunk with its due time, a writer passes them on
    /// in order when due and the link is not silent, then forwards the end of input.
    /// - Parameters:
    ///   - chosen: whether the link's condition applies to this connection.
    ///   - connection: whether it was abandoned.
    private func carry(from source: Int32, to destination: Int32, fromClient: Bool, chosen: ConnectionChoice,
                       connection: OpenConnection) {
        let held = HeldChunks()
        let written = DispatchSemaphore(value: 0)
        Thread { [self] in
            while let bytes = nextChunk(of: held, chosen: chosen, connection: connection) {
                guard LoopbackSocket.writeAll(bytes, to: destination) else { break }
            }
            shutdown(destination, Int32(SHUT_WR))
            written.signal()
        }.start()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0 else { break }
            condition.withLock {
                let chunk = Array(buffer[0..<count])
                // Before the bytes go on: the server answers only after it got them.
                if fromClient, let marker { chosen.consider(chunk, marker: marker) }
                if fromClient, let marker = silencingMarker, chunk.indices.contains(where: { chunk[$0...].starts(with: marker) }) {
                    (state, silencingMarker) = (.silent, nil)
                }
                var due = ContinuousClock.now
                if chosen.isChosen, case .degraded(let delay, let loss, let retransmission) = state {
                    due = due + delay
                    if Int(random.next() % 100) < loss {
                        let share = Double(random.next() % 1001) / 1000
                        due = due + retransmission.lowerBound + (retransmission.upperBound - retransmission.lowerBound) * share
                    }
                }
                // In order, as TCP delivers.
                held.lastDue = max(held.lastDue, due)
                held.chunks.append((held.lastDue, chunk))
                condition.broadcast()
            }
        }
        condition.withLock {
            held.ended = true
            condition.broadcast()
        }
        written.wait()
    }

    /// The next chunk once it is due and the link passes it; nil after the last (an abandoned
    /// connection's end is never passed on: nil only when the link stops).
    private func nextChunk(of held: HeldChunks, chosen: ConnectionChoice, connection: OpenConnection) -> [UInt8]? {
        condition.withLock {
            while true {
                if stopped.load(ordering: .sequentiallyConsistent) { return nil }
                if connection.abandoned || (state == .silent && chosen.isChosen) || (held.chunks.isEmpty && !held.ended) {
                    condition.wait()
                    continue
                }
                guard let first = held.chunks.first else { return nil }
                let wait = ContinuousClock.now.duration(to: first.due)
                if wait > .zero {
                    let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
                    _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
                    continue
                }
                return held.chunks.removeFirst().bytes
            }
        }
    }
}

/// Whether a connection was abandoned by `FaultyLink.vanish()`.
private final class OpenConnection: @unchecked Sendable {
    // @unchecked: read and written under the link's `condition`.
    var abandoned = false
}

/// What one direction of a connection read and has not passed on yet.
private final class HeldChunks: @unchecked Sendable {
    // @unchecked: every field is read and written under the link's `condition`.
    var chunks: [(due: ContinuousClock.Instant, bytes: [UInt8])] = []
    var lastDue = ContinuousClock.now
    var ended = false
}
