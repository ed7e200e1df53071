import ConfigCore
import ConfigStore

/// The held streams of one worker, kept in two shapes: a table by stream for opening, closing
/// and visits, and per project packed arrays that a publish walks in order. A publish to 100k
/// streams then costs a linear scan of two arrays rather than a hash probe per stream, and
/// leaves the core to the sends themselves.
///
/// Streams are grouped by template and encoding: a publish frames one message per group and
/// writes it to the group's streams in one pass, whatever the mix of encodings.
///
/// Generic over the stream type so that it can be tested without sockets.
struct HeldStreams<Stream: Hashable> {
    /// What the table knows of a held stream: 32 bytes, whatever its template's key holds.
    struct Entry {
        /// Its group's template and encoding, held once by the group.
        fileprivate let group: HeldGroupName
        /// Loop second at which the stream is ended (its lifetime).
        let expires: Int64
        /// The admission bucket to release when the stream closes.
        let bucket: Int
        /// Position in its group's arrays.
        fileprivate(set) var slot: Int

        var key: TemplateKey { group.key.key }
        var encoding: StreamEncoding { group.key.encoding }
    }

    /// One project's streams, the version each knows and the instance each named, index for
    /// index.
    private struct Group {
        /// Its template and encoding, which each of its entries refers to.
        let name: HeldGroupName
        var streams: [Stream] = []
        var lastKnown: [Int64] = []
        /// Empty for a stream that named none.
        var instances: [String] = []
        /// Each stream's bucket for `bucketSeed` (the running canary's), computed when a
        /// canary first needs it; `unknownBucket` until then.
        var buckets: [UInt32] = []
        var bucketSeed: String?

        static var unknownBucket: UInt32 { .max }

        init(_ name: HeldGroupName) {
            self.name = name
        }

        /// Adds `stream` at the end; returns its slot.
        mutating func append(_ stream: Stream, lastKnown version: Int64, instance: String) -> Int {
            streams.append(stream)
            lastKnown.append(version)
            instances.append(instance)
            buckets.append(Self.unknownBucket)
            return streams.count - 1
        }

        /// Removes the stream at `slot`; the last one fills the hole, so the arrays stay
        /// packed. Returns the removed stream's version and the stream that moved, if any.
        mutating func remove(at slot: Int) -> (lastKnown: Int64, moved: Stream?) {
            let version = lastKnown[slot]
            let last = streams.count - 1
            var moved: Stream?
            if slot != last {
                moved = streams[last]
                streams[slot] = streams[last]
                lastKnown[slot] = lastKnown[last]
                instances[slot] = instances[last]
                buckets[slot] = buckets[last]
            }
            streams.removeLast()
            lastKnown.removeLast()
            instances.removeLast()
            buckets.removeLast()
            return (version, moved)
        }

        /// The stream's bucket for `seed` (nil for a stream without an instance id), hashed
        /// once per stream and canary.
        mutating func bucket(at slot: Int, seed: String) -> UInt64? {
            if bucketSeed != seed {
                bucketSeed = seed
                buckets = Array(repeating: Self.unknownBucket, count: streams.count)
            }
            guard !instances[slot].isEmpty else { return nil }
            if buckets[slot] == Self.unknownBucket {
                // Buckets are below 10^8, so they fit 32 bits.
                buckets[slot] = UInt32(InstanceAssignment.bucket(id: seed, appInstanceId: instances[slot]))
            }
            return UInt64(buckets[slot])
        }

        mutating func advance(to version: Int64) -> (streams: [Stream], from: [Int64: Int]) {
            var advanced: [Stream] = []
            advanced.reserveCapacity(streams.count)
            var from: [Int64: Int] = [:]
            // Streams mostly know the same version: runs are counted, not each stream.
            var run: (version: Int64, count: Int) = (0, 0)
            for slot in streams.indices where lastKnown[slot] < version {
                if lastKnown[slot] != run.version {
                    if run.count > 0 { from[run.version, default: 0] += run.count }
                    run = (lastKnown[slot], 0)
                }
                run.count += 1
                lastKnown[slot] = version
                advanced.append(streams[slot])
            }
            if run.count > 0 { from[run.version, default: 0] += run.count }
            return (advanced, from)
        }
    }

    private var entries: [Stream: Entry] = [:]
    private var groups: [GroupKey: Group] = [:]

    var count: Int { entries.count }

    mutating func insert(_ stream: Stream, key: TemplateKey, encoding: StreamEncoding = .firebase, lastKnown: Int64,
                         instance: String = "", expires: Int64, bucket: Int) {
        precondition(entries[stream] == nil, "a stream is held once")
        let group = GroupKey(key: key, encoding: encoding)
        let slot = groups[group, default: Group(HeldGroupName(group))].append(stream, lastKnown: lastKnown, instance: instance)
        entries[stream] = Entry(group: groups[group]!.name, expires: expires, bucket: bucket, slot: slot)
    }

    /// Forgets `stream`, returning what it held; nil when it was not held.
    @discardableResult
    mutating func remove(_ stream: Stream) -> (entry: Entry, lastKnown: Int64)? {
        guard let entry = entries.removeValue(forKey: stream) else { return nil }
        let group = entry.group.key
        let (lastKnown, moved) = groups[group]!.remove(at: entry.slot)
        if let moved { entries[moved]!.slot = entry.slot }
        if groups[group]!.streams.isEmpty { groups[group] = nil }
        return (entry, lastKnown)
    }

    func entry(_ stream: Stream) -> (entry: Entry, lastKnown: Int64)? {
        guard let entry = entries[stream] else { return nil }
        return (entry, groups[entry.group.key]!.lastKnown[entry.slot])
    }

    /// The instance id `stream` named (empty when none).
    func instance(of stream: Stream) -> String {
        guard let entry = entries[stream] else { return "" }
        return groups[entry.group.key]!.instances[entry.slot]
    }

    /// Records that `stream` now knows `version`.
    mutating func setLastKnown(_ stream: Stream, to version: Int64) {
        guard let entry = entries[stream] else { return }
        groups[entry.group.key]!.lastKnown[entry.slot] = version
    }

    /// Moves every stream of `key` in `encoding` that knows an older version than `version` to
    /// it. Returns those streams, for the caller to write to once the table is consistent (a
    /// write may close a stream and so change the table), and how many came from each older
    /// version.
    mutating func advance(_ key: TemplateKey, encoding: StreamEncoding = .firebase,
                          to version: Int64) -> (streams: [Stream], from: [Int64: Int]) {
        groups[GroupKey(key: key, encoding: encoding)]?.advance(to: version) ?? ([], [:])
    }

    /// Moves every stream of `key` to the version `target` picks for it, when the stream's own
    /// version will not do: `target` gets the stream's bucket for `seed` (nil without a seed,
    /// or for a stream without an instance id). Returns the moved streams with their new
    /// versions, and how many came from each older version.
    mutating func advance(
        _ key: TemplateKey, encoding: StreamEncoding = .firebase, seed: String?, target: (_ bucket: UInt64?) -> StreamTarget
    ) -> (moved: [(stream: Stream, version: Int64)], from: [Int64: Int]) {
        let groupKey = GroupKey(key: key, encoding: encoding)
        guard var group = groups[groupKey] else { return ([], [:]) }
        groups[groupKey] = nil  // uniquely referenced while it changes
        defer { groups[groupKey] = group }
        var moved: [(stream: Stream, version: Int64)] = []
        var from: [Int64: Int] = [:]
        for slot in group.streams.indices {
            let destination = target(seed.flatMap { group.bucket(at: slot, seed: $0) })
            guard !destination.isCurrent(group.lastKnown[slot]) else { continue }
            from[group.lastKnown[slot], default: 0] += 1
            group.lastKnown[slot] = destination.version
            moved.append((group.streams[slot], destination.version))
        }
        return (moved, from)
    }

    /// The streams of `key`, in every encoding, that know an older version than `version`.
    func streams(of key: TemplateKey, olderThan version: Int64) -> [Stream] {
        StreamEncoding.allCases.flatMap { encoding -> [Stream] in
            guard let group = groups[GroupKey(key: key, encoding: encoding)] else { return [] }
            return group.streams.indices.filter { group.lastKnown[$0] < version }.map { group.streams[$0] }
        }
    }

    /// Every held stream with its project, encoding and the version it knows.
    var all: [(stream: Stream, key: TemplateKey, encoding: StreamEncoding, lastKnown: Int64)] {
        groups.flatMap { groupKey, group in
            zip(group.streams, group.lastKnown).map { (stream: $0, key: groupKey.key, encoding: groupKey.encoding, lastKnown: $1) }
        }
    }
}

/// A group of held streams: one template in one encoding.
private struct GroupKey: Hashable {
    let key: TemplateKey
    let encoding: StreamEncoding
}

/// A group's key, made once per group and referred to by each of its entries: an entry holding
/// the key itself (a project id and an environment id, two strings) was 72 bytes, and the table
/// holds one per held stream.
private final class HeldGroupName: Sendable {
    let key: GroupKey

    init(_ key: GroupKey) {
        self.key = key
    }
}
