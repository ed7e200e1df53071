import Synchronization

/// Who answers a request whose work runs on the store queue: the work, or the refusal at its
/// deadline. Exactly one does; once the work has claimed it (to answer, or to commit) the
/// refusal cannot, and once refused the work may neither answer nor commit.
final class AnswerClaim: Sendable {
    private static let open: UInt8 = 0, work: UInt8 = 1, refused: UInt8 = 2
    private let state = Atomic<UInt8>(AnswerClaim.open)

    /// Claims the answer for the work; true also when it had claimed it already.
    func takeForWork() -> Bool {
        let (exchanged, original) = state.compareExchange(expected: Self.open, desired: Self.work, ordering: .acquiringAndReleasing)
        return exchanged || original == Self.work
    }

    /// Claims the answer for the refusal; false when the work had it.
    func takeForRefusal() -> Bool {
        state.compareExchange(expected: Self.open, desired: Self.refused, ordering: .acquiringAndReleasing).exchanged
    }

    var isRefused: Bool { state.load(ordering: .acquiring) == Self.refused }
}
