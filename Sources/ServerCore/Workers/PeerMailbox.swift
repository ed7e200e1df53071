package import EventLoop

/// Reads the worker's peer datagrams on its loop: a peer's commit goes to the one path for
/// changes, a peer's question (its numbers for `/metrics` or adoption) is answered with this
/// worker's, and an answer goes to the gather that asked.
package struct PeerMailbox: Sendable {
    let channel: PeerChannel
    let updates: TemplateUpdates
    let gather: PeerGather
    /// This worker's answer to a question.
    let answer: @Sendable (PeerQuestion) -> [UInt8]

    package init(channel: PeerChannel, updates: TemplateUpdates, gather: PeerGather,
                 answer: @escaping @Sendable (PeerQuestion) -> [UInt8]) {
        self.channel = channel
        self.updates = updates
        self.gather = gather
        self.answer = answer
    }

    /// Watches the channel (loop thread, or before the loop runs).
    package func start(on loop: EventLoop) throws {
        try loop.watchReadable(fd: channel.fd) {
            for message in channel.drain() {
                switch message {
                case .published(let key, let version):
                    updates.heard(key, version: version)
                case .question(let from, let id, let question):
                    channel.send(.answer(from: channel.worker, id: id, payload: answer(question)), to: from)
                case .answer(let from, let id, let payload):
                    gather.received(payload, from: from, id: id)
                }
            }
        }
    }
}
