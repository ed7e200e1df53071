import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Synchronization
import Testing

/// Several threads and several databases (processes, nodes) writing one template at once.
extension StoreContract.Templates {
    /// Publishes from `threads` threads, thread i on `stores[i % stores.count]`; the numbers
    /// the publishes got.
    private func publishConcurrently(stores: [any TemplateStore], threads: Int, perThread: Int) -> [Int64] {
        let numbers = Mutex<[Int64]>([])
        let failures = Mutex<[String]>([])
        onThreads(threads) { thread in
            let store = stores[thread % stores.count]
            for iteration in 0..<perThread {
                do {
                    let version = try store.publishTag(thread * 1000 + iteration)
                    numbers.withLock { $0.append(version.versionNumber) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        return numbers.withLock { $0 }
    }

    private func threadsPublishGapFree(_ engine: StoreEngine, threads: Int, perThread: Int) throws {
        let store = try templates(engine)
        let total = Int64(threads * perThread)
        let numbers = publishConcurrently(stores: [store], threads: threads, perThread: perThread)
        #expect(numbers.sorted() == Array(1...total))
        #expect(try store.heads() == [TemplateKey(project: "p1", namespace: .client): total])
        let listed = try store.listVersions(project: "p1", namespace: .client).versions
        #expect(listed.map(\.versionNumber) == Array((1...total).reversed()))
        // Times never go backwards along version order.
        #expect(zip(listed, listed.dropFirst()).allSatisfy { $0.updateTime >= $1.updateTime })
    }

    @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases) func fourThreadsPublishGapFree(engine: StoreEngine) throws {
        try threadsPublishGapFree(engine, threads: 4, perThread: 50)
    }

    @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases)
    func eightThreadsPublishTwoHundredVersionsGapFree(engine: StoreEngine) throws {
        try threadsPublishGapFree(engine, threads: 8, perThread: 25)
    }

    @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases) func separateStoresPublishGapFree(engine: StoreEngine) throws {
        let fixture = try fresh.fixture(engine)
        let stores = try ([fixture.make()] + (1...2).map { _ in try fixture.make(addProject: false) }).map(\.templates)
        let numbers = publishConcurrently(stores: stores, threads: 6, perThread: 20)
        #expect(numbers.sorted() == Array(1...120))
        for store in stores {
            #expect(try store.activeVersion(project: "p1", namespace: .client)?.versionNumber == 120)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases)
    func concurrentPublishersWithExpectedVersionsSeeMismatchesNotDuplicates(engine: StoreEngine) throws {
        let store = try templates(engine)
        let wins = Mutex<[Int64]>([])
        let unexpected = Mutex<[String]>([])
        onThreads(4) { _ in
            for _ in 0..<200 {
                do {
                    let current = try store.activeVersion(project: "p1", namespace: .client)?.versionNumber ?? 0
                    guard current < 40 else { return }
                    let version = try store.publish(
                        project: "p1", namespace: .client, templateJSON: [], expectedVersion: current,
                        metadata: PublishMetadata())
                    wins.withLock { $0.append(version.versionNumber) }
                } catch StoreError.versionMismatch {
                    continue
                } catch {
                    unexpected.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(unexpected.withLock { $0 } == [])
        #expect(wins.withLock { $0 }.sorted() == Array(1...40))
    }
}
