package import EventLoop

/// Answers that need every worker's numbers (`/metrics`, adoption): asks the peers, waits for
/// their answers or a deadline, then completes with what it has (loop thread only).
///
/// The deadline keeps a scrape from hanging on a worker that is being restarted; callers
/// report how many workers answered.
package final class PeerGather: @unchecked Sendable {
    // @unchecked: `pending` and `nextID` are touched only by `gather` and `received`, which
    // assert they run on `loop`'s thread, and by the timer they schedule there.
    private struct Pending {
        var answers: [Int: [UInt8]]
        let expected: Int
        let completion: ([[UInt8]]) -> Void
    }

    /// How long a gather waits for a silent peer; the loop's timers have one-second steps.
    static let deadlineSeconds: Int64 = 2

    private let channel: PeerChannel?
    private let loop: EventLoop
    private var pending: [UInt64: Pending] = [:]
    private var nextID: UInt64 = 1

    /// Workers in the group, this one included.
    var workers: Int { channel?.workers ?? 1 }

    package init(channel: PeerChannel?, loop: EventLoop) {
        self.channel = channel
        self.loop = loop
    }

    /// Completes with this worker's `local` answer and each peer's, in worker order.
    func gather(_ question: PeerQuestion, local: [UInt8], completion: @escaping ([[UInt8]]) -> Void) {
        loop.preconditionInLoop()
        guard let channel, !channel.peers.isEmpty else { return completion([local]) }
        let id = nextID
        nextID += 1
        pending[id] = Pending(answers: [channel.worker: local], expected: channel.workers, completion: completion)
        channel.broadcast(.question(from: channel.worker, id: id, question))
        loop.schedule(afterSeconds: Self.deadlineSeconds) { [self] in finish(id) }
    }

    /// A peer's answer arrived.
    func received(_ payload: [UInt8], from worker: Int, id: UInt64) {
        loop.preconditionInLoop()
        guard var gather = pending[id] else { return }
        gather.answers[worker] = payload
        pending[id] = gather
        if gather.answers.count >= gather.expected { finish(id) }
    }

    private func finish(_ id: UInt64) {
        guard let gather = pending.removeValue(forKey: id) else { return }
        gather.completion(gather.answers.sorted { $0.key < $1.key }.map(\.value))
    }
}
