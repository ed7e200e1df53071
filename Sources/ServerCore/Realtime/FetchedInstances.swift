/// The app instances that fetched one template, with the version and minute of each one's
/// latest fetch (loop thread only).
///
/// Recorded on every fetch, so it is an open-addressing table of 64-bit hashes of the ids
/// rather than a dictionary of strings: a fetch costs a hash of the id's bytes and a probe or
/// two, not SipHash and a string copy. Two ids of one hash would count as one client; among
/// the 200,000 a worker keeps that happens with a chance of about 1 in 10⁹.
final class FetchedInstances {
    private struct Slot {
        /// 0 marks an empty slot (a hash of 0 is stored as 1).
        var hash: UInt64
        var version: Int64
        var minute: Int64
    }

    // Touched on one thread, never by overlapping accesses: the run-time exclusivity check,
    // tens of instructions per access, is left out on this path taken by every fetch.
    @exclusivity(unchecked) private var slots: [Slot]
    @exclusivity(unchecked) private var mask: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int = 64) {
        let size = Self.size(for: capacity)
        slots = Array(repeating: Slot(hash: 0, version: 0, minute: 0), count: size)
        mask = size - 1
    }

    /// The hash of an instance id: FNV-1a over its UTF-8 bytes, mixed so that its low bits,
    /// which pick the slot, depend on every byte.
    static func hash(_ instance: String) -> UInt64 {
        var instance = instance
        var hash = instance.withUTF8 { FetchAnswer.fnv1a($0) }
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        return hash == 0 ? 1 : hash
    }

    /// Records a fetch of `version` by the instance of `hash`. A new instance is added only when
    /// `mayAdd`; returns whether one was.
    func record(hash: UInt64, version: Int64, minute: Int64, mayAdd: Bool) -> Bool {
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let stored = slots[index].hash
            if stored == hash {
                slots[index].version = version
                slots[index].minute = minute
                return false
            }
            if stored == 0 { break }
            index = (index + 1) & mask
        }
        guard mayAdd else { return false }
        slots[index] = Slot(hash: hash, version: version, minute: minute)
        count += 1
        // At most half full, so that a probe ends after a slot or two.
        if count * 2 > slots.count { rebuild(capacity: slots.count, keepingAfter: Int64.min) }
        return true
    }

    /// Forgets the instances whose latest fetch was in `minute` or before.
    func forget(upToMinute minute: Int64) {
        rebuild(capacity: count, keepingAfter: minute)
    }

    /// Instances per version of their latest fetch.
    func clientsPerVersion() -> [Int64: Int] {
        var clients: [Int64: Int] = [:]
        for slot in slots where slot.hash != 0 { clients[slot.version, default: 0] += 1 }
        return clients
    }

    /// The power of two at least twice `count`, and at least 16.
    private static func size(for count: Int) -> Int {
        count <= 8 ? 16 : 1 << (Int.bitWidth - (count * 2 - 1).leadingZeroBitCount)
    }

    private func rebuild(capacity: Int, keepingAfter minute: Int64) {
        let kept = slots.filter { $0.hash != 0 && $0.minute > minute }
        let size = Self.size(for: max(capacity, kept.count))
        slots = Array(repeating: Slot(hash: 0, version: 0, minute: 0), count: size)
        mask = size - 1
        count = 0
        for slot in kept { _ = record(hash: slot.hash, version: slot.version, minute: slot.minute, mayAdd: true) }
    }
}
