import ConfigCore
@testable import ConfigServer
@testable import ServerCore
import ConfigStore
import Foundation
import Testing

/// The store poll is the job `store poll` of the worker's job runtime, on the server's clock: a
/// version committed straight into the store, as another process commits it, with no worker
/// told, is heard once the clock passed `store.pollIntervalSeconds` and the due jobs ran, and
/// not before; so is the store's availability. Nothing here waits for real time: the loop's
/// ticks still sweep the change counters, which such a commit leaves alone.
@Suite(.timeLimit(.minutes(1))) final class StorePollTests {
    static let interval = 5.0
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let server: TestServer

    init() throws {
        server = try TestServer(clock: clock) {
            $0.store.pollIntervalSeconds = Self.interval
            $0.fetch.throttleBurst = 0
        }
    }

    /// The value of parameter `key` the server's fetch answers.
    func fetchedValue() throws -> String? {
        let response = try server.request("POST", "/v1/projects/demo/namespaces/firebase:fetch",
                                          headers: [("X-Goog-Api-Key", TestServer.apiKey)],
                                          body: #"{"appInstanceId":"i","appId":"1:424242:ios:ab"}"#)
        #expect(response.status == 200, "\(response.text)")
        return (try response.json()["entries"] as? [String: String])?["key"]
    }

    func readiness() throws -> Int {
        try server.request("GET", "/readyz").status
    }

    @Test func theStorePollIsAJobOfEveryWorker() {
        #expect(server.instance.application.jobs.jobNames.contains(ChangeFeed.pollJobName))
    }

    @Test func aCommitNoWorkerAnnouncedIsHeardOnceThePollIsDue() throws {
        try server.publish(Templates.single("heard"))
        #expect(try fetchedValue() == "heard")
        // The poll at start has read the store's change token: the commit below moves it.
        server.runDueJobs()
        let unheard = try server.commitUnheard("unannounced")
        server.runDueJobs()
        #expect(try fetchedValue() == "heard", "the poll is not due yet")
        clock.advance(by: Self.interval - 0.5)
        server.runDueJobs()
        #expect(try fetchedValue() == "heard", "the poll is not due yet")
        clock.advance(by: 0.5)
        server.runDueJobs()
        #expect(try fetchedValue() == "unannounced", "version \(unheard), read by the poll")
    }

    @Test func theStoresAvailabilityIsWhatTheLastPollFound() throws {
        server.runDueJobs()
        #expect(try readiness() == 200)
        server.instance.application.store.close()
        server.runDueJobs()
        #expect(try readiness() == 200, "no poll since the store went away")
        clock.advance(by: Self.interval)
        server.runDueJobs()
        #expect(try readiness() == 503, "the poll found the store unreadable")
    }
}
