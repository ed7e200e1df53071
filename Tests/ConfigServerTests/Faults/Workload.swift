import Dispatch
import Foundation
import Synchronization
import TestSupport

/// The clients of a fault scenario, on every node at once until `stop()`: publishers each
/// writing values no other publish writes, a fetcher, and an SDK (a held stream that fetches whenever it
/// is told of a new version), each recording every call in `history`; and a poll of each node's
/// `/readyz` every 100 ms, which tells the checker when a node said it was cut off.
final class Workload: Sendable {
    /// Where a node answers now (a restarted node has a new port; nil while it is down).
    final class Node: Sendable {
        let index: Int
        private let current: Mutex<Int?>

        init(index: Int, port: Int) {
            self.index = index
            current = Mutex(port)
        }

        var port: Int? { current.withLock { $0 } }

        func moved(to port: Int?) { current.withLock { $0 = port } }
    }

    /// How many clients of each kind run on every node.
    struct Mix: Sendable {
        var publishers = 2
        var fetchers = 1
        var sdks = 1
    }

    let history: History
    let nodes: [Node]
    private let seed: UInt64
    private let mix: Mix
    private let stopped = Atomic(false)
    private let running = DispatchGroup()

    init(history: History, nodes: [Node], seed: UInt64, mix: Mix = Mix()) {
        self.history = history
        self.nodes = nodes
        self.seed = seed
        self.mix = mix
    }

    /// Starts the clients of `mix` and the readiness poll on every node.
    func start() {
        for node in nodes {
            let publishers = Array(repeating: { @Sendable [self] in publisher($0) }, count: mix.publishers)
            let fetchers = Array(repeating: { @Sendable [self] in fetcher($0) }, count: mix.fetchers)
            let sdks = (0..<mix.sdks).map { number in { @Sendable [self] in sdk($0, number: number) } }
            let clients: [@Sendable (Node) -> Void] = publishers + fetchers + sdks + [{ [self] in readinessPoll($0) }]
            for client in clients {
                running.enter()
                Thread { [self] in
                    client(node)
                    running.leave()
                }.start()
            }
        }
    }

    /// Stops every client and waits for their calls in progress (each has a time limit).
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        running.wait()
    }

    private var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    /// A pause between calls, so that a few clients do not saturate two nodes (pacing only).
    private func pause(_ milliseconds: UInt32) { letTimePass(seconds: Double(milliseconds) / 1000) }

    private func record(_ kind: History.Kind, _ node: Node, start: Double, _ answer: NodeCalls.Answer) {
        history.record(History.Operation(
            kind: kind, node: node.index, start: start, end: start + answer.seconds, status: answer.status,
            outcomeUnknown: answer.outcomeUnknown, version: answer.version, value: kind == .publish ? nil : answer.value))
    }

    /// Calls `call` with the node's port and a count, `pauseMilliseconds` apart, until stopped;
    /// waits while the node is down.
    private func repeatCalls(on node: Node, pauseMilliseconds: UInt32, _ call: (_ port: Int, _ count: Int) -> Void) {
        var count = 0
        while !isStopped {
            guard let port = node.port else {
                pause(50)
                continue
            }
            count += 1
            call(port, count)
            pause(pauseMilliseconds)
        }
    }

    private func publisher(_ node: Node) {
        let name = UUID().uuidString.prefix(4)
        repeatCalls(on: node, pauseMilliseconds: 100) { port, count in
            let value = "s\(seed)-n\(node.index)-\(name)-\(count)"
            let start = history.now
            var answer = NodeCalls.publish(port, value, limit: 5)
            answer.value = value
            history.record(History.Operation(
                kind: .publish, node: node.index, start: start, end: start + answer.seconds, status: answer.status,
                outcomeUnknown: answer.outcomeUnknown, version: answer.version, value: value))
        }
    }

    private func fetcher(_ node: Node) {
        repeatCalls(on: node, pauseMilliseconds: 40) { port, count in
            let start = history.now
            record(.fetch, node, start: start, NodeCalls.fetch(port, limit: 5, instance: "fetcher-\(node.index)-\(count % 50)"))
        }
    }

    private func readinessPoll(_ node: Node) {
        repeatCalls(on: node, pauseMilliseconds: 100) { port, _ in
            record(.readiness, node, start: history.now, NodeCalls.readiness(port))
        }
    }

    /// Holds a stream; on each version it is told of, records the notice and fetches on a new
    /// connection, as an SDK does. Opens it again (knowing the last version it saw) when it ends.
    private func sdk(_ node: Node, number: Int) {
        var known: Int64 = 0
        while !isStopped {
            guard let port = node.port, let stream = try? TestClient(port: port, timeoutSeconds: 1) else {
                pause(100)
                continue
            }
            do {
                try stream.send(TestClient.format(
                    "POST", "/v1/projects/123456789012/namespaces/firebase:streamFetchInvalidations",
                    headers: [("X-Goog-Api-Key", "example-api-key")],
                    body: Array("{\"lastKnownVersionNumber\":\"\(known)\"}".utf8)))
                guard try stream.readHead().status == 200 else { throw TestFailure("stream refused") }
                while !isStopped {
                    let chunk: [UInt8]
                    do {
                        guard let next = try stream.readChunk() else { break }
                        chunk = next
                    } catch let failure as TestFailure where failure.description.contains("errno 11") {
                        continue  // quiet for a second: still held
                    }
                    guard let version = Self.version(in: String(decoding: chunk, as: UTF8.self)) else { continue }
                    let now = history.now
                    history.record(History.Operation(kind: .streamNotice, node: node.index, start: now, end: now, status: 200,
                                                     version: version))
                    known = max(known, version)
                    record(.sdkFetch, node, start: history.now, NodeCalls.fetch(port, limit: 5, instance: "sdk-\(node.index)-\(number)"))
                }
            } catch {
                pause(100)
            }
        }
    }

    /// `latestTemplateVersionNumber` in a stream message.
    static func version(in message: String) -> Int64? {
        guard let range = message.range(of: "\"latestTemplateVersionNumber\"") else { return nil }
        return Int64(message[range.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber })
    }
}
