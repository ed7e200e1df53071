public import Foundation
import Glibc
import Synchronization

/// A TCP proxy on loopback that holds every byte coming back from the upstream server for
/// `delay` before passing it on, in order, as a slow network or a busy peer would. Bytes to the
/// upstream pass at once. Tests point a client at `port` instead of the server's; with
/// `onlyConnectionsSending`, only the connections whose client sends those bytes in its first
/// two chunks (a PostgreSQL startup message naming an `application_name`, after the SSL
/// request) are delayed.
public final class DelayingProxy: @unchecked Sendable {
    // @unchecked: `listener` is set once in init; each proxied connection's descriptors belong
    // to its two pump threads (the last to end closes them) and are listed in `connections`.
    public let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    private let delay: Duration
    private let marker: [UInt8]?
    private let connections = Mutex<Set<Int32>>([])
    private let stopped = Atomic(false)

    /// Listens on 127.0.0.1 (any free port) and forwards to `127.0.0.1:upstreamPort`.
    public init(upstreamPort: Int, delay: Duration, onlyConnectionsSending marker: String? = nil) throws {
        self.upstreamPort = upstreamPort
        self.delay = delay
        self.marker = marker.map { Array($0.utf8) }
        (listener, port) = try LoopbackSocket.listen()
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// Closes the listening socket and every proxied connection.
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in connections.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// `url` (a `scheme://user@host:port/path` URL) pointing at this proxy.
    public func url(replacingPortOf url: String) throws -> String {
        try LoopbackSocket.url(url, port: port)
    }

    private func acceptLoop() {
        LoopbackSocket.acceptLoop(listener, upstreamPort: upstreamPort) { client, upstream in
            connections.withLock { $0.formUnion([client, upstream]) }
            let pumps = PumpCount()
            let delayed = ConnectionChoice(chosen: marker == nil)
            let finished: @Sendable () -> Void = { [self] in
                guard pumps.ended() else { return }
                connections.withLock { $0.subtract([client, upstream]) }
                close(client)
                close(upstream)
            }
            Thread { [self] in
                pump(from: client, to: upstream, delay: nil) { [marker] bytes in
                    // Before the bytes go on: the server answers only after it got them.
                    if let marker { delayed.consider(bytes, marker: marker) }
                }
                finished()
            }.start()
            Thread { [self] in
                pump(from: upstream, to: client, delay: { [delay] in delayed.isChosen ? delay : .zero })
                finished()
            }.start()
        }
    }

    /// Copies until either side closes, showing each chunk to `observe`; with a delay, a writer
    /// thread sends each chunk `delay()` after it was read, in order. Returns once nothing more
    /// will be written.
    private func pump(from source: Int32, to destination: Int32, delay: (@Sendable () -> Duration)?,
                      observe: @Sendable ([UInt8]) -> Void = { _ in }) {
        let queue = DelayedChunks()
        let written = DispatchSemaphore(value: 0)
        if let delay {
            Thread {
                defer { written.signal() }
                while let (due, chunk) = queue.next() {
                    let wait = ContinuousClock.now.duration(to: due)
                    letTimePass(seconds: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
                    guard LoopbackSocket.writeAll(chunk, to: destination) else { break }
                }
                shutdown(destination, Int32(SHUT_RDWR))
            }.start()
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0 else { break }
            let chunk = Array(buffer[0..<count])
            observe(chunk)
            if let delay {
                queue.append(chunk, due: ContinuousClock.now + delay())
            } else if !LoopbackSocket.writeAll(chunk, to: destination) {
                break
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        if delay != nil {
            queue.finish()
            written.wait()
        } else {
            shutdown(destination, Int32(SHUT_RDWR))
        }
    }
}

/// Whether a proxy's faults touch one connection (its answers held back, say), decided from the
/// first chunks its client sent (later traffic, a query that names the marker, say, changes
/// nothing).
final class ConnectionChoice: Sendable {
    private let chosen: Atomic<Bool>
    private let chunksSeen = Atomic(0)

    init(chosen: Bool) { self.chosen = Atomic(chosen) }

    var isChosen: Bool { chosen.load(ordering: .sequentiallyConsistent) }

    func consider(_ bytes: [UInt8], marker: [UInt8]) {
        guard chunksSeen.add(1, ordering: .sequentiallyConsistent).oldValue < 2 else { return }
        if bytes.indices.contains(where: { bytes[$0...].starts(with: marker) }) {
            chosen.store(true, ordering: .sequentiallyConsistent)
        }
    }
}

/// The two pumps of one connection: the last to end closes its descriptors.
final class PumpCount: Sendable {
    private let running = Atomic(2)

    /// Whether this was the last pump.
    func ended() -> Bool { running.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 }
}

/// Chunks waiting for their time, in the order they were read.
private final class DelayedChunks: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var chunks: [(ContinuousClock.Instant, [UInt8])] = []
    private var finished = false

    func append(_ chunk: [UInt8], due: ContinuousClock.Instant) {
        condition.withLock {
            chunks.append((due, chunk))
            condition.signal()
        }
    }

    func finish() {
        condition.withLock {
            finished = true
            condition.signal()
        }
    }

    /// The next chunk, waiting for one; nil once finished and empty.
    func next() -> (ContinuousClock.Instant, [UInt8])? {
        condition.withLock {
            while chunks.isEmpty && !finished { condition.wait() }
            return chunks.isEmpty ? nil : chunks.removeFirst()
        }
    }
}

public struct ProxyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
