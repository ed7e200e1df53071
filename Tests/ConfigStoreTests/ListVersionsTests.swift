import ConfigCore
import ConfigStore
import Foundation
import TestSupport
import Testing

@Suite final class ListVersionsTests {
    private let temporary: TemporaryDirectory
    private var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    /// Seven versions, published one minute apart starting at `clock`'s start.
    private func sevenVersions(in directory: URL, clock: ManualClock) throws -> SQLiteTemplateStore {
        let store = try SQLiteTemplateStore.make(in: directory, clock: clock)
        for tag in 1...7 {
            try store.publishTag(tag)
            clock.advance(by: 60)
        }
        return store
    }

    private func numbers(_ page: (versions: [StoredVersion], nextPageToken: String?)) -> [Int64] {
        page.versions.map(\.versionNumber)
    }

    @Test func pagesNewestFirst() throws {
        let store = try sevenVersions(in: directory, clock: ManualClock())
        let first = try store.listVersions(project: "p1", namespace: .client, pageSize: 3)
        #expect(numbers(first) == [7, 6, 5])
        #expect(first.versions.allSatisfy { $0.templateJSON.isEmpty })
        let firstToken = try #require(first.nextPageToken)
        let second = try store.listVersions(project: "p1", namespace: .client, pageSize: 3, pageToken: firstToken)
        #expect(numbers(second) == [4, 3, 2])
        let secondToken = try #require(second.nextPageToken)
        let third = try store.listVersions(project: "p1", namespace: .client, pageSize: 3, pageToken: secondToken)
        #expect(numbers(third) == [1])
        #expect(third.nextPageToken == nil)

        let exact = try store.listVersions(project: "p1", namespace: .client, pageSize: 7, pageToken: "")
        #expect(numbers(exact) == [7, 6, 5, 4, 3, 2, 1])
        #expect(exact.nextPageToken == nil)

        let withJSON = try store.listVersions(project: "p1", namespace: .client, pageSize: 1, includeTemplateJSON: true)
        #expect(withJSON.versions.first?.templateText == #"{"n":7}"#)
        #expect(try store.listVersions(project: "p1", namespace: .server).versions.isEmpty)
        #expect(try store.listVersions(project: "nobody", namespace: .client).versions.isEmpty)
    }

    @Test func filtersByEndVersionAndTimeRange() throws {
        let clock = ManualClock()
        let start = clock.now
        let store = try sevenVersions(in: directory, clock: clock)
        func minutes(_ count: Double) -> Date { start.addingTimeInterval(count * 60) }

        #expect(numbers(try store.listVersions(project: "p1", namespace: .client, endVersionNumber: 4)) == [4, 3, 2, 1])
        #expect(numbers(try store.listVersions(project: "p1", namespace: .client, endVersionNumber: 99)).count == 7)
        // Version n was updated at minute n - 1; startTime inclusive, endTime exclusive.
        #expect(numbers(try store.listVersions(
            project: "p1", namespace: .client, startTime: minutes(2), endTime: minutes(5))) == [5, 4, 3])
        #expect(numbers(try store.listVersions(
            project: "p1", namespace: .client, startTime: minutes(1.5))) == [7, 6, 5, 4, 3])

        // Filters combine with paging.
        let first = try store.listVersions(
            project: "p1", namespace: .client, pageSize: 2, endVersionNumber: 6, startTime: minutes(1))
        #expect(numbers(first) == [6, 5])
        let second = try store.listVersions(
            project: "p1", namespace: .client, pageSize: 2, pageToken: first.nextPageToken,
            endVersionNumber: 6, startTime: minutes(1))
        #expect(numbers(second) == [4, 3])
        let last = try store.listVersions(
            project: "p1", namespace: .client, pageSize: 2, pageToken: second.nextPageToken,
            endVersionNumber: 6, startTime: minutes(1))
        #expect(numbers(last) == [2])
        #expect(last.nextPageToken == nil)
    }

    @Test func rejectsBadArguments() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        #expect(throws: StoreError.invalidPageToken("garbage")) {
            try store.listVersions(project: "p1", namespace: .client, pageToken: "garbage")
        }
        #expect(throws: StoreError.invalidPageToken("v0")) {
            try store.listVersions(project: "p1", namespace: .client, pageToken: "v0")
        }
        let pageSize = try #require(throws: StoreError.self) {
            try store.listVersions(project: "p1", namespace: .client, pageSize: 0)
        }
        #expect(pageSize.description.contains("pageSize"))
        let end = try #require(throws: StoreError.self) {
            try store.listVersions(project: "p1", namespace: .client, endVersionNumber: 0)
        }
        #expect(end.description.contains("endVersionNumber"))
    }
}
