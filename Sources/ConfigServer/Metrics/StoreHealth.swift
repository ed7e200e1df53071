import Synchronization

/// Whether the store answered this worker's last poll: the change feed writes it, `/readyz`
/// reads it without a store call on the loop.
final class StoreHealth: Sendable {
    private let available = Atomic<Bool>(true)

    var isAvailable: Bool {
        available.load(ordering: .relaxed)
    }

    /// Spelled as `Atomic.store`, as the change feed writes it.
    func store(_ isAvailable: Bool, ordering: AtomicStoreOrdering) {
        // `Atomic` takes its ordering only as a literal.
        switch ordering {
        case .relaxed: available.store(isAvailable, ordering: .relaxed)
        case .releasing: available.store(isAvailable, ordering: .releasing)
        default: available.store(isAvailable, ordering: .sequentiallyConsistent)
        }
    }
}
