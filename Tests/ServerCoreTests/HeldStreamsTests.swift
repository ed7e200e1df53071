@testable import ServerCore
import ConfigCore
import ConfigStore
import Testing
import TestSupport

@Suite struct HeldStreamsTests {
    let app = TemplateKey(project: "app", namespace: .client)
    let other = TemplateKey(project: "other", namespace: .client)

    /// Every stream's version as the table reports it, for whole-table comparisons.
    func versions(_ held: HeldStreams<Int>) -> [Int: Int64] {
        Dictionary(uniqueKeysWithValues: held.all.map { ($0.stream, $0.lastKnown) })
    }

    @Test func removalKeepsTheOthersFindable() {
        var held = HeldStreams<Int>()
        for stream in 0..<6 {
            held.insert(stream, key: app, lastKnown: Int64(stream), expires: 100 + Int64(stream), bucket: stream)
        }
        // Removing from the front, the middle and the end moves the last stream into each hole.
        #expect(held.remove(0)?.lastKnown == 0)
        #expect(held.remove(3)?.lastKnown == 3)
        #expect(held.remove(4)?.lastKnown == 4)
        #expect(held.remove(4) == nil)
        #expect(held.count == 3)
        #expect(versions(held) == [1: 1, 2: 2, 5: 5])
        for stream in [1, 2, 5] {
            let found = held.entry(stream)
            #expect(found?.lastKnown == Int64(stream))
            #expect(found?.entry.bucket == stream && found?.entry.expires == 100 + Int64(stream))
        }
        held.setLastKnown(5, to: 9)
        #expect(held.entry(5)?.lastKnown == 9)
        #expect(held.streams(of: app, olderThan: 3).sorted() == [1, 2])
    }

    @Test func advanceMovesOnlyOlderStreamsOfTheKey() {
        var held = HeldStreams<Int>()
        for stream in 0..<10 {
            held.insert(stream, key: app, lastKnown: stream < 4 ? 1 : stream < 7 ? 2 : 5, expires: 0, bucket: 0)
        }
        held.insert(100, key: other, lastKnown: 1, expires: 0, bucket: 0)
        let (streams, from) = held.advance(app, to: 5)
        #expect(streams.sorted() == Array(0..<7))
        #expect(from == [1: 4, 2: 3])
        #expect(held.streams(of: app, olderThan: 5).isEmpty)
        #expect(held.entry(100)?.lastKnown == 1)
        // A second announcement of the same version moves nobody.
        #expect(held.advance(app, to: 5).streams.isEmpty)
        #expect(held.advance(TemplateKey(project: "none", namespace: .client), to: 9).streams.isEmpty)
    }

    @Test func emptiedProjectsAreForgottenAndCanComeBack() {
        var held = HeldStreams<Int>()
        held.insert(1, key: app, lastKnown: 3, expires: 0, bucket: 0)
        held.remove(1)
        #expect(held.count == 0 && held.all.isEmpty)
        held.insert(1, key: app, lastKnown: 4, expires: 0, bucket: 0)
        #expect(held.advance(app, to: 5).from == [4: 1])
    }

    @Test func matchesAPlainTableUnderRandomOperations() {
        // The packed arrays against a dictionary model, over inserts, removals, single updates
        // and advances; every stream's entry is checked after every step.
        var rng = SplitMix64(seed: 0x5EED)
        var held = HeldStreams<Int>()
        var model: [Int: (key: TemplateKey, version: Int64)] = [:]
        for step in 0..<3_000 {
            let stream = Int.random(in: 0..<100, using: &rng)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4 where model[stream] == nil:
                let key = Bool.random(using: &rng) ? app : other
                let version = Int64.random(in: 1...4, using: &rng)
                held.insert(stream, key: key, lastKnown: version, expires: Int64(stream) * 10, bucket: stream)
                model[stream] = (key, version)
            case 0..<6:
                #expect(held.remove(stream)?.lastKnown == model.removeValue(forKey: stream)?.version)
            case 6 where model[stream] != nil:
                let version = Int64.random(in: 1...6, using: &rng)
                held.setLastKnown(stream, to: version)
                model[stream]!.version = version
            default:
                let key = Bool.random(using: &rng) ? app : other
                let version = Int64(step % 6 + 1)
                let expected = model.filter { $0.value.key == key && $0.value.version < version }
                let (streams, from) = held.advance(key, to: version)
                #expect(Set(streams) == Set(expected.keys) && streams.count == expected.count)
                #expect(from == Dictionary(expected.map { ($0.value.version, 1) }, uniquingKeysWith: +))
                for stream in expected.keys { model[stream]!.version = version }
            }
            #expect(held.count == model.count)
            for (stream, expected) in model {
                let found = held.entry(stream)
                #expect(found?.lastKnown == expected.version && found?.entry.key == expected.key)
                #expect(found?.entry.bucket == stream && found?.entry.expires == Int64(stream) * 10)
            }
        }
        #expect(versions(held) == model.mapValues(\.version))
    }

    /// With a canary, each stream goes where its instance belongs: the canary's share gets the
    /// canary version, the others the active one; streams that knew what they need, or the
    /// version the active one repeats, are left alone. Buckets survive removals (the holes are
    /// filled by moved streams, with their buckets).
    @Test func canaryAdvanceFollowsEachInstance() {
        var held = HeldStreams<Int>()
        let instances = (0..<200).map { "i\($0)" }
        for (stream, instance) in instances.enumerated() {
            held.insert(stream, key: app, lastKnown: 1, instance: stream == 0 ? "" : instance, expires: 0, bucket: 0)
        }
        held.insert(999, key: other, lastKnown: 1, instance: "x", expires: 0, bucket: 0)
        let share: UInt64 = 30_000_000
        func isMember(_ stream: Int) -> Bool {
            stream != 0 && InstanceAssignment.bucket(id: "seed", appInstanceId: instances[stream]) < share
        }
        func advance(canary: Int64, stable: StreamTarget) -> [Int: Int64] {
            let (moved, _) = held.advance(app, seed: "seed") { bucket in
                bucket.map { $0 < share } == true ? StreamTarget(version: canary, equivalent: nil) : stable
            }
            return Dictionary(uniqueKeysWithValues: moved.map { ($0.stream, $0.version) })
        }
        let first = advance(canary: 2, stable: StreamTarget(version: 1, equivalent: nil))
        #expect(Set(first.keys) == Set((0..<200).filter(isMember)) && first.values.allSatisfy { $0 == 2 })
        #expect((40...80).contains(first.count), "30 % of 200, got \(first.count)")
        #expect(held.instance(of: 7) == "i7" && held.instance(of: 0) == "")
        held.remove(5)
        held.remove(120)
        // A promotion (version 3 repeats 2): only the streams outside the canary move.
        let promoted = advance(canary: 2, stable: StreamTarget(version: 3, equivalent: 2))
        let outside = Set((1..<200).filter { !isMember($0) && $0 != 5 && $0 != 120 }).union([0])
        #expect(Set(promoted.keys) == outside && promoted.values.allSatisfy { $0 == 3 })
        #expect(held.entry(999)?.lastKnown == 1, "another project's stream is untouched")
    }
}
