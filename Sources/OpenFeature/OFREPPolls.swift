import ConfigCore
import Foundation
import ServerCore

/// What a polling client was last answered, by the bytes of its request body: a client-side
/// provider polls with the same body and the ETag it was given, and while the template it is
/// served is the same one, its answer is too (when no condition reads the time), so a 304 needs
/// no parsing and no evaluation.
final class OFREPPolls: Sendable {
    /// One poll's answer: the template it was evaluated on, for whom, and the answer; the
    /// client's outcomes, app version and platform, under which a 304 is counted again.
    struct Answer: Sendable {
        let template: ActiveTemplate
        let targetingKey: String
        let answer: OFREPAnswer
        let outcomes: ConditionOutcomes
        let appVersion: String?
        let platform: String?
    }

    /// Bodies longer than this are not kept: they come from the client, and the cache keeps
    /// 4,096 of them (real ones are a few hundred bytes).
    static let maxBodyBytes = 512
    private let answers = ResettingCache<Body, Answer>(capacity: 4096)

    /// A body as the cache's key: hashed once with FNV-1a, where an array of bytes would be fed
    /// to the hasher byte by byte (thousands of instructions on each poll).
    struct Body: Hashable, Sendable {
        let bytes: [UInt8]
        let hash: UInt64

        /// Nil for a body longer than ``OFREPPolls/maxBodyBytes``, which is not kept.
        init?(_ bytes: [UInt8]) {
            guard bytes.count <= OFREPPolls.maxBodyBytes else { return nil }
            self.bytes = bytes
            hash = FetchAnswer.fnv1a(bytes)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }

        /// The bytes compared as memory: `==` on arrays is an element-by-element loop.
        static func == (lhs: Body, rhs: Body) -> Bool {
            guard lhs.hash == rhs.hash, lhs.bytes.count == rhs.bytes.count else { return false }
            return lhs.bytes.withUnsafeBytes { left in
                rhs.bytes.withUnsafeBytes { right in left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
            }
        }
    }

    /// The answer `body` was given, if it can be given again (see the type).
    func answer(for body: Body) -> Answer? {
        answers.cached(body)
    }

    func record(_ answer: Answer, for body: Body) {
        guard !answer.template.compiled.readsTime else { return }
        answers.store(answer, for: body)
    }
}
