import Foundation
import StoreTestSupport
import Testing

/// The store contract on every engine, each case on fresh data of its own.
@Suite struct StoreContractTests {
    @Test(arguments: StoreEngine.allCases) func answersUntilClosedThenUnavailable(engine: StoreEngine) throws {
        try engine.contract().answersUntilClosedThenUnavailable()
    }
    @Test(arguments: StoreEngine.allCases) func projectsAndAPIKeys(engine: StoreEngine) throws {
        try engine.contract().projectsAndAPIKeys()
    }
    @Test(arguments: StoreEngine.allCases) func theAuditLogAppendsFiltersPagesAndPrunes(engine: StoreEngine) throws {
        try engine.contract().theAuditLogAppendsFiltersPagesAndPrunes()
    }
    @Test(arguments: StoreEngine.allCases) func anAuditEntryIsNeverTimedBeforeTheOneAheadOfIt(engine: StoreEngine) throws {
        try engine.contract().anAuditEntryIsNeverTimedBeforeTheOneAheadOfIt()
    }
    @Test(arguments: StoreEngine.allCases) func accessRecordsAreKeptByKindAndID(engine: StoreEngine) throws {
        try engine.contract().accessRecordsAreKeptByKindAndID()
    }
    @Test(arguments: StoreEngine.allCases) func aSignInAttemptIsTakenOnceBeforeItExpires(engine: StoreEngine) throws {
        try engine.contract().aSignInAttemptIsTakenOnceBeforeItExpires()
    }
    @Test(arguments: StoreEngine.allCases) func changeRequestsAreKeptListedAndUpdatedByRevision(engine: StoreEngine) throws {
        try engine.contract().changeRequestsAreKeptListedAndUpdatedByRevision()
    }
    @Test(arguments: StoreEngine.allCases) func aPublishAppliesAChangeRequestInItsTransaction(engine: StoreEngine) throws {
        try engine.contract().aPublishAppliesAChangeRequestInItsTransaction()
    }
    @Test(arguments: StoreEngine.allCases) func policiesAreKeptPerTemplate(engine: StoreEngine) throws {
        try engine.contract().policiesAreKeptPerTemplate()
    }
    @Test(arguments: StoreEngine.allCases) func webhookEndpointsAreKeptPerProject(engine: StoreEngine) throws {
        try engine.contract().webhookEndpointsAreKeptPerProject()
    }
    @Test(arguments: StoreEngine.allCases) func eventsCommitWithTheirChangeForTheEndpointsThatWantThem(engine: StoreEngine) throws {
        try engine.contract().eventsCommitWithTheirChangeForTheEndpointsThatWantThem()
    }
    @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases)
    func aDueDeliveryIsLeasedToOneCallerAtATime(engine: StoreEngine) throws {
        try engine.contract().aDueDeliveryIsLeasedToOneCallerAtATime()
    }
    @Test(arguments: StoreEngine.allCases) func attemptsAreLoggedRetriedRedeliveredAndPruned(engine: StoreEngine) throws {
        try engine.contract().attemptsAreLoggedRetriedRedeliveredAndPruned()
    }
    @Test(arguments: StoreEngine.allCases) func publishNumbersVersionsFromOneAndMovesTheHead(engine: StoreEngine) throws {
        try engine.contract().publishNumbersVersionsFromOneAndMovesTheHead()
    }
    @Test(arguments: StoreEngine.allCases) func updateTimeNeverGoesBackwards(engine: StoreEngine) throws {
        try engine.contract().updateTimeNeverGoesBackwards()
    }
    @Test(arguments: StoreEngine.allCases) func publishChecksTheExpectedVersion(engine: StoreEngine) throws {
        try engine.contract().publishChecksTheExpectedVersion()
    }
    @Test(arguments: StoreEngine.allCases) func publishRejectsBadInput(engine: StoreEngine) throws {
        try engine.contract().publishRejectsBadInput()
    }
    @Test(arguments: StoreEngine.allCases) func rollbackCopiesAnOlderVersionAsANewOne(engine: StoreEngine) throws {
        try engine.contract().rollbackCopiesAnOlderVersionAsANewOne()
    }
    @Test(arguments: StoreEngine.allCases, [1, 5])
    func retentionKeepsTheNewestVersionsIncludingTheActiveOne(engine: StoreEngine, retention: Int) throws {
        try engine.contract().retentionKeepsTheNewestVersionsIncludingTheActiveOne(retention: retention)
    }
    @Test(arguments: StoreEngine.allCases) func reopeningKeepsEverything(engine: StoreEngine) throws {
        try engine.contract().reopeningKeepsEverything()
    }
    @Test(arguments: StoreEngine.allCases) func changeTokenMovesOnEveryCommitFromAnyStore(engine: StoreEngine) throws {
        try engine.contract().changeTokenMovesOnEveryCommitFromAnyStore()
    }

    @Test(arguments: StoreEngine.allCases) func aCanaryIsStoredButNotActive(engine: StoreEngine) throws {
        try engine.contract().aCanaryIsStoredButNotActive()
    }
    @Test(arguments: StoreEngine.allCases) func publishesAndRollbacksWaitWhileACanaryRuns(engine: StoreEngine) throws {
        try engine.contract().publishesAndRollbacksWaitWhileACanaryRuns()
    }
    @Test(arguments: StoreEngine.allCases) func theShareOnlyGrows(engine: StoreEngine) throws {
        try engine.contract().theShareOnlyGrows()
    }
    @Test(arguments: StoreEngine.allCases) func promotionCopiesTheCanaryForEveryone(engine: StoreEngine) throws {
        try engine.contract().promotionCopiesTheCanaryForEveryone()
    }
    @Test(arguments: StoreEngine.allCases) func abortCopiesTheStableVersionBack(engine: StoreEngine) throws {
        try engine.contract().abortCopiesTheStableVersionBack()
    }
    @Test(arguments: StoreEngine.allCases) func retentionNeverPrunesTheStableVersion(engine: StoreEngine) throws {
        try engine.contract().retentionNeverPrunesTheStableVersion()
    }
    @Test(arguments: StoreEngine.allCases) func aFirstVersionCannotBeACanary(engine: StoreEngine) throws {
        try engine.contract().aFirstVersionCannotBeACanary()
    }

    @Test(arguments: StoreEngine.allCases) func pagesNewestFirst(engine: StoreEngine) throws {
        try engine.contract().pagesNewestFirst()
    }
    @Test(arguments: StoreEngine.allCases) func filtersByEndVersionAndTimeRange(engine: StoreEngine) throws {
        try engine.contract().filtersByEndVersionAndTimeRange()
    }
    @Test(arguments: StoreEngine.allCases) func listingRejectsBadArguments(engine: StoreEngine) throws {
        try engine.contract().listingRejectsBadArguments()
    }

    @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases) func fourThreadsPublishGapFree(engine: StoreEngine) throws {
        try engine.contract().threadsPublishGapFree(threads: 4, perThread: 50)
    }
    @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases)
    func eightThreadsPublishTwoHundredVersionsGapFree(engine: StoreEngine) throws {
        try engine.contract().threadsPublishGapFree(threads: 8, perThread: 25)
    }
    @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases) func separateStoresPublishGapFree(engine: StoreEngine) throws {
        try engine.contract().separateStoresPublishGapFree()
    }
    @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases)
    func concurrentPublishersWithExpectedVersionsSeeMismatchesNotDuplicates(engine: StoreEngine) throws {
        try engine.contract().concurrentPublishersWithExpectedVersionsSeeMismatchesNotDuplicates()
    }
}

extension StoreEngine {
    /// The contract on fresh data of this engine (gone when the contract value is).
    func contract() throws -> StoreContract {
        StoreContract(fixture: try fixture())
    }
}
