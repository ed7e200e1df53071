import Foundation
import TestSupport

/// A webhook endpoint on loopback that records every request and answers as `answer` says for
/// the nth one (from 0): a status, or nil to drop the connection without an answer.
final class WebhookReceiver: @unchecked Sendable {
    // @unchecked: `received` is only touched under `condition`.
    struct Received {
        let headers: [String: String]
        let body: Data

        var id: String { headers["webhook-id"] ?? "" }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    private let condition = NSCondition()
    private var received: [Received] = []
    private var server: LoopbackServer?

    init(answer: @escaping @Sendable (Int) -> Int? = { _ in 200 }) throws {
        // Weak: a retry may still arrive while the receiver is going away (its server's
        // threads outlive it by a moment); that one is dropped.
        server = try LoopbackServer { [weak self] request, connection in
            guard let self else { return connection.close() }
            let index = record(Received(headers: request.headers, body: request.body))
            if let status = answer(index) { connection.respond(status: status, body: "answer \(index)") } else { connection.close() }
        }
    }

    deinit { server?.stop() }

    var url: String { "\(server?.baseURL ?? "")/hook" }

    private func record(_ request: Received) -> Int {
        condition.lock()
        defer { condition.unlock() }
        received.append(request)
        condition.broadcast()
        return received.count - 1
    }

    /// Every request so far once there are at least `count` (or the time limit passed).
    func requests(atLeast count: Int, within seconds: Double = 20) throws -> [Received] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while received.count < count {
            guard condition.wait(until: deadline) else {
                throw TestFailure("the receiver got \(received.count) requests, not \(count), within \(seconds) s")
            }
        }
        return received
    }

    /// How many requests carried each `webhook-id`.
    func attemptsPerID() -> [String: Int] {
        condition.lock()
        defer { condition.unlock() }
        return received.reduce(into: [:]) { $0[$1.id, default: 0] += 1 }
    }
}
