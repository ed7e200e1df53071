import CLinuxIO
@testable import ServerCore
import ConfigStore
import Dispatch
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The supervisor starts every worker on a fresh data directory, restarts any worker that
/// exits, and refuses to run short-handed when a worker cannot start at all.
@Suite(.timeLimit(.minutes(3))) struct WorkerSupervisionTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("rcs-supervision")
    }

    /// A path in this test's directory that does not exist yet.
    func freshDataDir() -> String {
        temporary.url.appendingPathComponent(UUID().uuidString).path
    }

    /// Why `daemon` does not have exactly `workers` serving workers, or nil when it does: every
    /// worker is a live child of the supervisor (none left a zombie) and answers the scrape's
    /// question to its peers, which a worker does only once it is bound and serving.
    static func shortfall(_ daemon: DaemonProcess, workers: Int) -> String? {
        let children = daemon.children()
        guard children.zombies.isEmpty else { return "unreaped workers \(children.zombies.sorted())" }
        guard children.alive.count == workers else { return "\(children.alive.count) live workers" }
        guard let metrics = try? DaemonTests.admin(daemon.port, "GET", "/metrics").text else { return "no /metrics answer" }
        guard metrics.contains("\nrcs_workers_reporting \(workers)\n") else {
            return metrics.split(separator: "\n").first { $0.hasPrefix("rcs_workers_reporting") }.map(String.init) ?? "no rcs_workers_reporting"
        }
        return nil
    }

    /// The log lines holding every one of `needles`, in order.
    static func lines(of log: String, containing needles: String...) -> [Substring] {
        log.split(separator: "\n").filter { line in needles.allSatisfy { line.contains($0) } }
    }

    /// 30 daemons on empty data directories, five at a time: each must start every worker.
    @Test(arguments: [2, 4]) func everyWorkerServesAfterEachOf30FreshStarts(workers: Int) {
        let failures = Mutex<[String]>([])
        for batch in 0..<6 {
            let group = DispatchGroup()
            for slot in 0..<5 {
                group.enter()
                let dataDir = freshDataDir()
                Thread.detachNewThread {
                    defer { group.leave() }
                    let start = batch * 5 + slot
                    do {
                        let daemon = try DaemonProcess(dataDir: dataDir, workers: workers, startSeconds: 15)
                        if let problem = Self.shortfall(daemon, workers: workers) {
                            failures.withLock { $0.append("start \(start): \(problem)") }
                        }
                        daemon.kill(SIGTERM)
                        let status = daemon.waitForExit()
                        if status != 0 { failures.withLock { $0.append("start \(start): exit status \(status) after SIGTERM") } }
                    } catch {
                        failures.withLock { $0.append("start \(start): \(error)") }
                    }
                }
            }
            group.wait()
        }
        let failed = failures.withLock { $0 }
        #expect(failed.isEmpty, "\(failed.count) of 30 starts with \(workers) workers failed:\n\(failed.joined(separator: "\n"))")
    }

    /// Worker 1 cannot bind its peer socket (another process holds the name) and exits, twice,
    /// before it serves; the supervisor restarts it and says `listening` only when it serves.
    @Test func aWorkerThatExitsDuringStartUpIsRestartedBeforeTheServerListens() throws {
        let dataDir = freshDataDir()
        var hold: PeerNameHold?
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 2, launched: { hold = try PeerNameHold(group: $0, worker: 1) }) { log in
            // Each restart is logged before its delay (0.1 s, then 0.2 s): the third start finds the name free.
            if Self.lines(of: log, containing: "worker exited; restarting", "worker=1").count == 2 { hold?.release() }
        }
        #expect(Self.shortfall(daemon, workers: 2) == nil)
        let log = try daemon.log(containing: "workers=2")
        let restarts = Self.lines(of: log, containing: "worker exited; restarting", "worker=1", "exit status 1")
        #expect(restarts.count == 2, "\(log)")
        let listening = try #require(log.range(of: "workers=2 [ConfigServer] listening"))
        let lastRestart = try #require(log.range(of: "worker exited; restarting", options: .backwards))
        #expect(lastRestart.upperBound < listening.lowerBound, "listening only once worker 1 serves")
        #expect(Self.lines(of: log, containing: "delay=0.1s").count == 1 && Self.lines(of: log, containing: "delay=0.2s").count == 1,
                "the delay grows: \(log)")
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func aWorkerKilledLaterIsRestartedAndServesAgain() throws {
        let dataDir = freshDataDir()
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 2)
        let before = daemon.children().alive
        let victim = try #require(before.first)
        kill(victim, SIGKILL)
        let log = try daemon.log(containing: "worker serving again")
        #expect(Self.lines(of: log, containing: "worker exited; restarting", "pid=\(victim)", "killed by signal 9 (Killed)").count == 1, "\(log)")
        let after = daemon.children().alive
        #expect(after.count == 2 && !after.contains(victim) && after.isSuperset(of: before.subtracting([victim])))
        #expect(Self.shortfall(daemon, workers: 2) == nil)
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// A database migrated by a newer build: the supervisor finds it before any worker starts.
    @Test func aDatabaseWithANewerSchemaStopsTheDaemonWithTheReason() throws {
        let dataDir = freshDataDir()
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        let database = try SQLiteDatabase(path: dataDir + "/remote-config.sqlite")
        try database.executeScript("""
            CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT;
            INSERT INTO schema_migrations VALUES (9999, 'future', 0)
            """)
        database.close()
        let result = try DaemonProcess.runUntilExit(arguments: DaemonProcess.arguments(dataDir: dataDir, workers: 2))
        #expect(result.status != 0)
        #expect(result.log.contains("database schema is at migration 9999 but this build knows migrations only up to"), "\(result.log)")
        #expect(!result.log.contains("listening"))
    }

    /// A data directory that cannot be created (its parent is a file) stops the daemon at once.
    @Test func anUnusableDataDirectoryStopsTheDaemonWithTheReason() throws {
        let file = freshDataDir()
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: file))
        let result = try DaemonProcess.runUntilExit(arguments: DaemonProcess.arguments(dataDir: file + "/data", workers: 2))
        #expect(result.status != 0)
        #expect(result.log.contains("cannot open the database \(file)/data/remote-config.sqlite: Not a directory"), "\(result.log)")
        #expect(!result.log.contains("listening"))
    }

    /// A worker that never starts: after five failed starts in a row the supervisor stops the
    /// other worker and exits non-zero, naming the worker and its last exit.
    @Test func aWorkerThatNeverStartsStopsTheDaemonWithTheReason() throws {
        let dataDir = freshDataDir()
        var hold: PeerNameHold?
        defer { hold?.release() }
        let result = try DaemonProcess.runUntilExit(arguments: DaemonProcess.arguments(dataDir: dataDir, workers: 2)) {
            hold = try PeerNameHold(group: $0, worker: 1)
        }
        #expect(result.status != 0)
        #expect(result.log.contains("worker 1 failed to start 5 times in a row (last: exit status 1)"), "\(result.log)")
        #expect(Self.lines(of: result.log, containing: "worker=0", "stopped").count == 1, "the other worker was stopped: \(result.log)")
        #expect(!result.log.contains("workers=2 [ConfigServer] listening"))
    }
}

/// Holds the abstract socket name a worker of the group binds for its peers, so that the worker
/// fails to start as it would if another process had taken it: a real start-up failure, made
/// from outside the server.
final class PeerNameHold {
    private var fd: Int32

    /// - Parameter group: the supervisor's pid (the group's name).
    init(group: pid_t, worker: Int) throws {
        fd = rcs_dgram_bind(PeerChannel.name(group: "\(group)", worker: worker))
        guard fd >= 0 else { throw TestFailure("cannot hold worker \(worker)'s peer name (errno \(errno)): it started first") }
    }

    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { release() }
}
