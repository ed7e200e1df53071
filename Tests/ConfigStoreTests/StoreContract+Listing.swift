import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// `listVersions`: paging, filters and argument checks.
extension StoreContract.Templates {
    /// Seven versions, published one minute apart starting at `clock`'s start.
    private func sevenVersions(_ engine: StoreEngine, clock: ManualClock) throws -> any TemplateStore {
        let store = try templates(engine, clock: clock)
        for tag in 1...7 {
            try store.publishTag(tag)
            clock.advance(by: 60)
        }
        return store
    }

    private func numbers(_ page: (versions: [StoredVersion], nextPageToken: String?)) -> [Int64] {
        page.versions.map(\.versionNumber)
    }

    @Test(arguments: StoreEngine.allCases) func pagesNewestFirst(engine: StoreEngine) throws {
        let store = try sevenVersions(engine, clock: ManualClock())
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

    @Test(arguments: StoreEngine.allCases) func filtersByEndVersionAndTimeRange(engine: StoreEngine) throws {
        let clock = ManualClock()
        let start = clock.now
        let store = try sevenVersions(engine, clock: clock)
        func minutes(_ count: Double) -> Date { start.addingTimeInterval(count * 60) }
        func list(pageSize: Int? = nil, token: String? = nil, end: Int64? = nil, from: Date? = nil, to: Date? = nil) throws -> (
            versions: [StoredVersion], nextPageToken: String?
        ) {
            try store.listVersions(
                project: "p1", namespace: .client, pageSize: pageSize, pageToken: token, endVersionNumber: end,
                startTime: from, endTime: to, includeTemplateJSON: false)
        }

        #expect(numbers(try list(end: 4)) == [4, 3, 2, 1])
        #expect(numbers(try list(end: 99)).count == 7)
        // Version n was updated at minute n - 1; startTime inclusive, endTime exclusive.
        #expect(numbers(try list(from: minutes(2), to: minutes(5))) == [5, 4, 3])
        #expect(numbers(try list(from: minutes(1.5))) == [7, 6, 5, 4, 3])

        // Filters combine with paging.
        let first = try list(pageSize: 2, end: 6, from: minutes(1))
        #expect(numbers(first) == [6, 5])
        let second = try list(pageSize: 2, token: first.nextPageToken, end: 6, from: minutes(1))
        #expect(numbers(second) == [4, 3])
        let last = try list(pageSize: 2, token: second.nextPageToken, end: 6, from: minutes(1))
        #expect(numbers(last) == [2])
        #expect(last.nextPageToken == nil)
    }

    @Test(arguments: StoreEngine.allCases) func listingRejectsBadArguments(engine: StoreEngine) throws {
        let store = try templates(engine)
        for token in ["garbage", "v0", "v-1", "1"] {
            #expect(throws: StoreError.invalidPageToken(token)) {
                try store.listVersions(project: "p1", namespace: .client, pageToken: token)
            }
        }
        let pageSize = try #require(throws: StoreError.self) {
            try store.listVersions(project: "p1", namespace: .client, pageSize: 0)
        }
        #expect(pageSize.description.contains("pageSize"))
        let end = try #require(throws: StoreError.self) {
            try store.listVersions(
                project: "p1", namespace: .client, pageSize: nil, pageToken: nil, endVersionNumber: 0,
                startTime: nil, endTime: nil, includeTemplateJSON: false)
        }
        #expect(end.description.contains("endVersionNumber"))
    }
}
