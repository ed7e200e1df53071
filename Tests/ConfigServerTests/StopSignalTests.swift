@testable import ConfigServer
import Foundation
import Glibc
import TestSupport
import Testing

/// SIGTERM stops the server gracefully whenever it arrives, start-up included, and a stop
/// never waits for ever for a worker.
@Suite(.timeLimit(.minutes(3))) struct StopSignalTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("rcs-stop")
    }

    /// The moment the server says `starting` it is about to set up its workers (or, alone,
    /// its listener); a SIGTERM then must neither kill it mid-start nor be lost.
    @Test(arguments: [1, 2]) func aSIGTERMAsTheServerStartsStopsItGracefully(workers: Int) throws {
        for attempt in 0..<5 {
            let result = try DaemonProcess.runUntilExit(arguments: DaemonProcess.arguments(dataDir: temporary.path + "/data", workers: workers),
                                                        sigtermWhenLogged: "starting", seconds: 20)
            #expect(result.status == 0, "attempt \(attempt): \(result.log)")
            // The line of the process started (a worker's names the worker).
            #expect(result.log.contains("remote-config-server: [ConfigServer] stopped"), "attempt \(attempt): \(result.log)")
        }
    }

    /// A worker told to stop before it ran any of its own code keeps the signal until it can
    /// take it, then stops gracefully (exit status 0) and is restarted.
    @Test func aWorkerToldToStopAsItIsSpawnedStopsGracefully() throws {
        let daemon = try DaemonProcess(dataDir: temporary.path + "/data", workers: 2)
        var known = daemon.children().alive
        kill(try #require(known.first), SIGKILL)
        // Each restart of the stopped worker is the next fresh worker to stop.
        for attempt in 0..<4 {
            let fresh = try daemon.newChild(besides: known)
            kill(fresh, SIGTERM)
            known.insert(fresh)
            let log = try daemon.log(containing: "worker exited; restarting", "pid=\(fresh)")
            let exit = WorkerSupervisionTests.lines(of: log, containing: "worker exited; restarting", "pid=\(fresh)")
            #expect(exit.count == 1 && exit[0].contains("cause=exit status 0"), "attempt \(attempt): \(log)")
        }
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// A worker that cannot take its SIGTERM (here: stopped with SIGSTOP) is killed once the
    /// grace period and the margin have passed, and the stop says so.
    @Test func aWorkerThatDoesNotStopIsKilledAfterTheGracePeriod() throws {
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "config/remote-config.json"))) as! [String: Any]
        var http = config["http"] as? [String: Any] ?? [:]
        http["shutdownGracePeriod"] = 1
        config["http"] = http
        let configPath = temporary.path + "/config.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        let daemon = try DaemonProcess(dataDir: temporary.path + "/data", workers: 2, config: configPath)
        let stuck = try #require(daemon.children().alive.first)
        kill(stuck, SIGSTOP)
        let stopped = Date()
        daemon.kill(SIGTERM)
        let bound = Double(1 + Supervisor.stopMarginSeconds)
        let log = try daemon.log(containing: "worker did not stop in time; killing", "pid=\(stuck)", within: bound + 10)
        #expect(Date().timeIntervalSince(stopped) >= bound - 0.1, "killed only after the grace period and the margin")
        #expect(daemon.waitForExit() == 1)
        #expect(WorkerSupervisionTests.lines(of: log, containing: "waited=\(Int(bound))s").count == 1, "\(log)")
        let final = try daemon.log(containing: "did not stop within \(Int(bound)) s and was killed")
        #expect(WorkerSupervisionTests.lines(of: final, containing: "[ConfigServer] stopped").count == 1, "the other worker stopped: \(final)")
    }
}
