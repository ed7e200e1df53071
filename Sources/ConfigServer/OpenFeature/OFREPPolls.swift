import ConfigCore

/// What a polling client was last answered, by the bytes of its request body: a client-side
/// provider polls with the same body and the ETag it was given, and while the template it is
/// served is the same one, its answer is too (when no condition reads the time), so a 304 needs
/// no parsing and no evaluation.
final class OFREPPolls: Sendable {
    /// One poll's answer: the template it was evaluated on, for whom, and the answer.
    struct Answer: Sendable {
        let template: ActiveTemplate
        let targetingKey: String
        let answer: OFREPAnswer
    }

    /// Bodies longer than this are not kept: they come from the client, and the cache keeps
    /// 4,096 of them (real ones are a few hundred bytes).
    static let maxBodyBytes = 512
    private let answers = ResettingCache<Body, Answer>(capacity: 4096)

    /// A body as the cache's key: hashed once with FNV-1a, where an array of bytes would be fed
    /// to the hasher byte by byte (thousands of instructions on each poll).
    private struct Body: Hashable, Sendable {
        let bytes: [UInt8]
        let hash: UInt64

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            hash = FetchAnswer.fnv1a(bytes)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }

        static func == (lhs: Body, rhs: Body) -> Bool {
            lhs.hash == rhs.hash && lhs.bytes == rhs.bytes
        }
    }

    /// The answer `body` was given, if it can be given again (see the type).
    func answer(for body: [UInt8]) -> Answer? {
        guard body.count <= Self.maxBodyBytes else { return nil }
        return answers.cached(Body(body))
    }

    func record(_ answer: Answer, for body: [UInt8]) {
        guard body.count <= Self.maxBodyBytes, !answer.template.compiled.readsTime else { return }
        answers.store(answer, for: Body(body))
    }
}
