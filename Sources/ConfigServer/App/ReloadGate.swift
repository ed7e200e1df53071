import ConfigStore
import Dispatch
import EventLoop
import Synchronization

/// What a request may need read again from the store before it is answered.
enum ReloadTarget: Hashable, Sendable {
    /// Projects and their API keys.
    case projects
    /// One template's active version.
    case template(TemplateKey)
}

/// Reloads off the loop thread, once for every request that waits on the same target, and
/// hands each waiting request back to the loop afterwards.
final class ReloadGate: Sendable {
    typealias Waiter = @Sendable (_ reloaded: Bool) -> Void

    private let loop: EventLoop
    /// Reads only, so that a reload never waits behind a publish's commit.
    private let queue = DispatchQueue(label: "remote-config.reload")
    private let waiting = Mutex<[ReloadTarget: [Waiter]]>([:])
    /// How long a reload may take from the moment it is asked for, its wait behind others
    /// included: then its waiters are answered from memory (`store.requestTimeoutSeconds`).
    private let timeout: Duration
    /// The last reload failed: the store cannot be read now.
    private let storeUnreadable = Atomic(false)

    init(loop: EventLoop, timeout: Duration) {
        self.loop = loop
        self.timeout = timeout
    }

    /// Runs `waiter` on the loop after `target` was read again by `reload` (blocking; false
    /// when the store could not be read, and the request is then answered from memory). While
    /// the last reload failed, `waiter` runs at once, from memory, and the reload runs behind it:
    /// a store that went quiet costs each fetch nothing, not a wait for its time-out.
    /// Call on the loop.
    func afterReload(of target: ReloadTarget, by reload: @escaping @Sendable () -> Bool, _ waiter: @escaping Waiter) {
        let unreadable = storeUnreadable.load(ordering: .relaxed)
        let first = waiting.withLock { table in
            let first = table[target] == nil
            table[target, default: []].append(contentsOf: unreadable ? [] : [waiter])
            return first
        }
        if first { start(target, by: reload) }
        if unreadable { waiter(false) }
    }

    private func start(_ target: ReloadTarget, by reload: @escaping @Sendable () -> Bool) {
        let deadline = ContinuousClock.now + timeout
        queue.async { [self] in
            // Behind reloads stuck on a quiet store, a store that waits for a server gives up at
            // once and the waiters are answered from memory; SQLite, which waits for nothing
            // but its file, reads anyway.
            let reloaded = StoreDeadline.run(until: deadline, reload)
            storeUnreadable.store(!reloaded, ordering: .relaxed)
            // Whoever joined after the read began is answered too: each waiter checks again
            // on the loop and waits for another reload if something newer was acknowledged.
            let waiters = waiting.withLock { $0.removeValue(forKey: target) ?? [] }
            loop.execute { [loop] in Self.resume(waiters[...], reloaded: reloaded, on: loop) }
        }
    }

    /// Requests resumed per loop iteration: after a publish thousands of fetches may wait on
    /// one reload, and the loop answers new connections and other work between the slices.
    static let resumeSlice = 64

    private static func resume(_ waiters: ArraySlice<Waiter>, reloaded: Bool, on loop: EventLoop) {
        for waiter in waiters.prefix(resumeSlice) { waiter(reloaded) }
        let rest = waiters.dropFirst(resumeSlice)
        guard !rest.isEmpty else { return }
        loop.deferUntilEndOfIteration { resume(rest, reloaded: reloaded, on: loop) }
    }
}
