import CLinuxIO

/// Counts held real-time streams against the caps, across every worker process.
///
/// The counters live in memory shared by the worker group (a memfd the supervisor creates),
/// so the global cap holds however connections spread over workers. Each worker also keeps
/// its own share, which the supervisor subtracts when that worker dies, so a crash leaks no
/// capacity. Layout, in Int64 slots: the group's totals (global + per-project buckets), then
/// one block of the same shape per worker.
package final class StreamAdmission: @unchecked Sendable {
    // @unchecked: every field is immutable, and the shared slots behind `slots` are read and
    // written only through atomic operations.
    static let projectBuckets = 1024
    static let blockSlots = 1 + projectBuckets
    package static let maxWorkers = 64
    static let regionBytes = (1 + maxWorkers) * blockSlots * MemoryLayout<Int64>.size

    private let slots: UnsafeMutablePointer<Int64>
    private let worker: Int
    let maxConnections: Int64
    let maxPerProject: Int64

    /// Counters in `region` (shared or private), for worker number `worker`.
    package init(region: UnsafeMutableRawPointer, worker: Int, maxConnections: Int, maxPerProject: Int) {
        precondition(worker >= 0 && worker < Self.maxWorkers, "worker index out of range")
        slots = region.bindMemory(to: Int64.self, capacity: (1 + Self.maxWorkers) * Self.blockSlots)
        self.worker = worker
        self.maxConnections = Int64(maxConnections)
        self.maxPerProject = Int64(maxPerProject)
    }

    /// Private counters for a single-process server.
    package static func local(maxConnections: Int, maxPerProject: Int) -> StreamAdmission {
        let region = UnsafeMutableRawPointer.allocate(byteCount: regionBytes, alignment: 8)
        region.initializeMemory(as: UInt8.self, repeating: 0, count: regionBytes)
        return StreamAdmission(region: region, worker: 0, maxConnections: maxConnections, maxPerProject: maxPerProject)
    }

    /// Takes a place for a stream of `project`, or returns nil at a cap (which is never exceeded).
    func acquire(project: String) -> Int? {
        let bucket = Self.bucket(of: project)
        guard rcs_atomic_increment_below(slots, maxConnections) == 1 else { return nil }
        if maxPerProject > 0, rcs_atomic_increment_below(slots + bucket, maxPerProject) != 1 {
            rcs_atomic_add(slots, -1)
            return nil
        }
        if maxPerProject <= 0 { rcs_atomic_add(slots + bucket, 1) }
        let own = slots + (1 + worker) * Self.blockSlots
        rcs_atomic_add(own, 1)
        rcs_atomic_add(own + bucket, 1)
        return bucket
    }

    /// Gives back a place taken by ``acquire(project:)``.
    func release(bucket: Int) {
        let own = slots + (1 + worker) * Self.blockSlots
        rcs_atomic_add(own + bucket, -1)
        rcs_atomic_add(own, -1)
        rcs_atomic_add(slots + bucket, -1)
        rcs_atomic_add(slots, -1)
    }

    /// Returns a dead worker's places to the group (supervisor only, before restarting it).
    package static func reclaim(worker: Int, region: UnsafeMutableRawPointer) {
        let slots = region.assumingMemoryBound(to: Int64.self)
        let own = slots + (1 + worker) * blockSlots
        for index in 0..<blockSlots {
            let held = rcs_atomic_load(own + index)
            guard held != 0 else { continue }
            rcs_atomic_add(own + index, -held)
            rcs_atomic_add(slots + index, -held)
        }
    }

    static func bucket(of project: String) -> Int {
        1 + Int(FNV1a.hash(project) % UInt32(projectBuckets))
    }
}
