/// The answers of one served version by one client dimension (app version or platform), with
/// at most `limit` values named and the others summed in `other` (docs/insights.md).
///
/// Counted on every fetch, so it is an open-addressing table of 64-bit hashes of the values
/// (`FetchedInstances.hash`), as the adoption record is, rather than a dictionary of strings,
/// whose every lookup hashes the string with SipHash through its Unicode normalization (hundreds
/// of instructions; docs/benchmarks.md, "What counting usage costs a fetch"). Two values of one
/// hash would count as one: among the 64 a tally names, a chance of about 1 in 10¹⁶.
struct ClientTally: Sendable {
    private struct Slot: Sendable {
        /// 0 marks an empty slot.
        var hash: UInt64
        var count: Int64
        var value: String
    }

    private var slots: [Slot]
    private let mask: Int
    private let limit: Int
    private var named = 0
    /// Answers to clients whose value came after `limit` others.
    private(set) var other: Int64 = 0

    init(limit: Int) {
        let size = 1 << (Int.bitWidth - (limit * 2 - 1).leadingZeroBitCount)
        slots = Array(repeating: Slot(hash: 0, count: 0, value: ""), count: size)
        mask = size - 1
        self.limit = limit
    }

    /// One more answer to a client of `value` ("" when it sent none).
    mutating func add(_ value: String) {
        let hash = FetchedInstances.hash(value)
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index].hash != 0 {
            if slots[index].hash == hash {
                slots[index].count += 1
                return
            }
            index = (index + 1) & mask
        }
        guard named < limit else {
            other += 1
            return
        }
        slots[index] = Slot(hash: hash, count: 1, value: value)
        named += 1
    }

    /// The named values and their answers.
    var counts: [(value: String, count: Int64)] {
        slots.filter { $0.hash != 0 }.map { ($0.value, $0.count) }
    }
}
