import Foundation

/// Runs blocking `work` (a poll loop, a wait on a socket, a write that waits for other nodes) on
/// a thread of its own and awaits its end.
///
/// Swift Testing runs every test on the cooperative pool, synchronous ones too, and that pool has
/// one thread per core: a test that blocks holds one of them (of two, on a small machine), and
/// other tests, their time limits included, wait behind it. Awaiting the thread instead gives
/// the pool's thread back for as long as the work takes.
public func onDedicatedThread<Result: Sendable>(
    _ work: @escaping @Sendable () throws -> Result
) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
    }
}
