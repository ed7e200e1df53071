import ConfigCore
import ConfigStore
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite final class ConcurrentPublishTests {
    private let temporary: TemporaryDirectory
    private var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    /// Runs `body(thread)` on `threads` real threads at once and waits for all of them.
    private func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<threads {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.wait()
    }

    private func publishConcurrently(stores: [SQLiteTemplateStore], threads: Int, perThread: Int) -> [Int64] {
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

    @Test(.timeLimit(.minutes(2)))
    func fourThreadsPublishGapFree() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        let numbers = publishConcurrently(stores: [store], threads: 4, perThread: 50)
        #expect(numbers.sorted() == Array(1...200))
        #expect(try store.heads() == [TemplateKey(project: "p1", namespace: .client): 200])
        let listed = try store.listVersions(project: "p1", namespace: .client).versions
        #expect(listed.map(\.versionNumber) == Array((1...200).reversed()))
        // Times never go backwards along version order.
        #expect(zip(listed, listed.dropFirst()).allSatisfy { $0.updateTime >= $1.updateTime })
    }

    @Test(.timeLimit(.minutes(2)))
    func separateConnectionsLikeSeparateProcessesPublishGapFree() throws {
        // Each store has its own writer connection, so they serialize only through SQLite's
        // write lock and busy_timeout, as separate processes would.
        let stores = try [SQLiteTemplateStore.make(in: directory)]
            + (1...2).map { _ in try SQLiteTemplateStore.make(in: directory, addProject: false) }
        let numbers = publishConcurrently(stores: stores, threads: 6, perThread: 20)
        #expect(numbers.sorted() == Array(1...120))
        for store in stores {
            #expect(try store.activeVersion(project: "p1", namespace: .client)?.versionNumber == 120)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func concurrentPublishersWithExpectedVersionsSeeMismatchesNotDuplicates() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        let wins = Mutex<[Int64]>([])
        let unexpected = Mutex<[String]>([])
        onThreads(4) { _ in
            var attempts = 0
            while attempts < 200 {
                attempts += 1
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
