import Synchronization

/// Whether the store answered this worker's last poll: the change feed writes it, `/readyz`
/// reads it without a store call on the loop.
package final class StoreHealth: Sendable {
    private let available = Atomic<Bool>(true)

    package init() {}

    /// Relaxed: a flag for reports, ordering nothing else.
    var isAvailable: Bool {
        get { available.load(ordering: .relaxed) }
        set { available.store(newValue, ordering: .relaxed) }
    }
}
