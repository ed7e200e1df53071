import ConfigStore
import Foundation
import PostgresStore
import Testing

/// Opens `PostgresTemplateStore`s on one test database.
struct PostgresFixture: StoreFixture {
    let database: TestDatabase

    func open(retention: Int, clock: ManualClock?) throws -> any TemplateStore {
        let now: @Sendable () -> Date = if let clock { { clock.read() } } else { { Date() } }
        return try PostgresTemplateStore(
            url: database.url, migrationsDirectory: PostgresTestServer.migrations, retention: retention, clock: now)
    }
}

/// The store contract on PostgreSQL, each case on a database of its own.
@Suite final class PostgresContractTests {
    let database: TestDatabase
    let contract: StoreContract

    init() throws {
        database = try TestDatabase()
        contract = StoreContract(fixture: PostgresFixture(database: database))
    }

    @Test func healthyUntilClosedThenUnavailable() throws { try contract.healthyUntilClosedThenUnavailable() }
    @Test func projectsAndAPIKeys() throws { try contract.projectsAndAPIKeys() }
    @Test func publishNumbersVersionsFromOneAndMovesTheHead() throws { try contract.publishNumbersVersionsFromOneAndMovesTheHead() }
    @Test func updateTimeNeverGoesBackwards() throws { try contract.updateTimeNeverGoesBackwards() }
    @Test func publishChecksTheExpectedVersion() throws { try contract.publishChecksTheExpectedVersion() }
    @Test func publishRejectsBadInput() throws { try contract.publishRejectsBadInput() }
    @Test func rollbackCopiesAnOlderVersionAsANewOne() throws { try contract.rollbackCopiesAnOlderVersionAsANewOne() }
    @Test(arguments: [1, 5]) func retentionKeepsTheNewestVersionsIncludingTheActiveOne(retention: Int) throws {
        try contract.retentionKeepsTheNewestVersionsIncludingTheActiveOne(retention: retention)
    }
    @Test func reopeningKeepsEverything() throws { try contract.reopeningKeepsEverything() }
    @Test func changeTokenMovesOnEveryCommitFromAnyStore() throws { try contract.changeTokenMovesOnEveryCommitFromAnyStore() }

    @Test func aCanaryIsStoredButNotActive() throws { try contract.aCanaryIsStoredButNotActive() }
    @Test func publishesAndRollbacksWaitWhileACanaryRuns() throws { try contract.publishesAndRollbacksWaitWhileACanaryRuns() }
    @Test func theShareOnlyGrows() throws { try contract.theShareOnlyGrows() }
    @Test func promotionCopiesTheCanaryForEveryone() throws { try contract.promotionCopiesTheCanaryForEveryone() }
    @Test func abortCopiesTheStableVersionBack() throws { try contract.abortCopiesTheStableVersionBack() }
    @Test func retentionNeverPrunesTheStableVersion() throws { try contract.retentionNeverPrunesTheStableVersion() }
    @Test func aFirstVersionCannotBeACanary() throws { try contract.aFirstVersionCannotBeACanary() }

    @Test func pagesNewestFirst() throws { try contract.pagesNewestFirst() }
    @Test func filtersByEndVersionAndTimeRange() throws { try contract.filtersByEndVersionAndTimeRange() }
    @Test func listingRejectsBadArguments() throws { try contract.listingRejectsBadArguments() }

    @Test(.timeLimit(.minutes(2))) func fourThreadsPublishGapFree() throws {
        try contract.threadsPublishGapFree(threads: 4, perThread: 50)
    }
    @Test(.timeLimit(.minutes(2))) func eightThreadsPublishTwoHundredVersionsGapFree() throws {
        try contract.threadsPublishGapFree(threads: 8, perThread: 25)
    }
    @Test(.timeLimit(.minutes(2))) func separateStoresPublishGapFree() throws { try contract.separateStoresPublishGapFree() }
    @Test(.timeLimit(.minutes(2))) func concurrentPublishersWithExpectedVersionsSeeMismatchesNotDuplicates() throws {
        try contract.concurrentPublishersWithExpectedVersionsSeeMismatchesNotDuplicates()
    }
}
