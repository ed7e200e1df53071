import Dispatch
@testable import ServerCore
import Synchronization
import Testing

/// A store lane on a thread of its own runs its items one at a time, in the order they came.
@Suite struct LaneThreadTests {
    @Test func itemsRunOneAtATimeInTheirOrderAndDrainWaitsForThem() {
        let lane = LaneThread(name: "lane-test")
        let log = Mutex<[Int]>([])
        let running = Atomic(0)
        let overlapped = Atomic(false)
        for index in 0..<500 {
            lane.async {
                if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
                log.withLock { $0.append(index) }
                running.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        lane.drain()
        #expect(log.withLock { $0 } == Array(0..<500))
        let didOverlap = overlapped.load(ordering: .relaxed)
        #expect(!didOverlap)
    }

    @Test func itemsQueuedFromManyThreadsAllRunBeforeTheDrainReturns() {
        let lane = LaneThread(name: "lane-test")
        let count = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<100 { lane.async { count.add(1, ordering: .relaxed) } }
        }
        lane.drain()
        let ran = count.load(ordering: .relaxed)
        #expect(ran == 800)
    }
}
