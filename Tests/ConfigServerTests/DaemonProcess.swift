import Dispatch
import Foundation
import Glibc
import TestSupport

/// The real `remote-config-server` executable, started as a child process on a free port.
final class DaemonProcess {
    let process: ChildProcess
    private let output: FileHandle
    private(set) var port = 0

    /// The executable built next to the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("remote-config-server")
    }

    /// Starts the daemon and waits until it says it listens (at most `startSeconds`).
    /// - Parameters:
    ///   - launched: runs with the supervisor's pid as soon as it runs, before it starts workers.
    ///   - logged: runs with the log so far each time it grows, until the daemon listens.
    init(dataDir: String, workers: Int, config: String = "config/remote-config.json", extraEnvironment: [String: String] = [:],
         startSeconds: Double = 60, launched: (pid_t) throws -> Void = { _ in }, logged: (String) -> Void = { _ in }) throws {
        (process, output) = try Self.start(Self.arguments(dataDir: dataDir, workers: workers, config: config), extraEnvironment: extraEnvironment)
        try launched(process.pid)
        (port, log.text) = try waitForPort(workers: workers, deadline: Date(timeIntervalSinceNow: startSeconds), logged: logged)
        // Keep draining the log so a chatty server never blocks on a full pipe; keep it for
        // tests that read it.
        let handle = output
        let log = self.log
        Thread.detachNewThread {
            while case let data = handle.availableData, !data.isEmpty {
                log.condition.lock()
                log.text += String(decoding: data, as: UTF8.self)
                log.condition.broadcast()
                log.condition.unlock()
            }
        }
    }

    static func arguments(dataDir: String, workers: Int, config: String = "config/remote-config.json") -> [String] {
        ["--port", "0", "--data-dir", dataDir, "--workers", "\(workers)", "--config", config]
    }

    /// Starts the executable with its standard error on a pipe: the child and the pipe's end
    /// to read.
    private static func start(_ arguments: [String], extraEnvironment: [String: String]) throws -> (ChildProcess, FileHandle) {
        var environment = ProcessInfo.processInfo.environment
        environment["RCS_LOG_LEVEL"] = "info"
        environment.merge(extraEnvironment) { $1 }
        let errors = try ChildProcess.makePipe()
        defer { close(errors.write) }
        let child = try ChildProcess(executable.path, arguments, environment: environment, standardError: errors.write)
        return (child, errors.read)
    }

    /// Runs a daemon until it exits: its exit status and everything it logged. Used for a daemon
    /// that is expected to refuse to start, or, with `sigtermWhenLogged`, to be stopped by a
    /// SIGTERM sent the moment it logs a line containing that text.
    /// - Throws: when it has not exited within `seconds` (it is killed then).
    /// - Parameter launched: as for `init`.
    static func runUntilExit(arguments: [String], extraEnvironment: [String: String] = [:], sigtermWhenLogged trigger: String? = nil,
                             seconds: Double = 30, launched: (pid_t) throws -> Void = { _ in }) throws -> (status: Int32, log: String) {
        let (process, errors) = try start(arguments, extraEnvironment: extraEnvironment)
        do { try launched(process.pid) } catch {
            process.kill()
            throw error
        }
        let deadline = DispatchWorkItem { process.signal(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: deadline)
        var log = ""
        var pendingTrigger = trigger
        while case let data = errors.availableData, !data.isEmpty {
            log += String(decoding: data, as: UTF8.self)
            if let needle = pendingTrigger, log.contains(needle) {
                process.signal(SIGTERM)
                pendingTrigger = nil
            }
        }
        let ended = process.waitUntilExit()
        deadline.cancel()
        if ended.bySignal && ended.status == SIGKILL {
            throw TestFailure("the server did not exit within \(seconds) s: \(log)")
        }
        return (ended.status, log)
    }

    /// The supervisor's child processes (its workers) that are alive, and those that are
    /// zombies (exited, not reaped), from /proc.
    func children() -> (alive: Set<pid_t>, zombies: Set<pid_t>) {
        var alive = Set<pid_t>()
        var zombies = Set<pid_t>()
        let supervisor = process.pid
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let nameEnd = stat.range(of: ") ", options: .backwards) else { continue }
            // After "pid (name) ": state, then the parent's pid.
            let fields = stat[nameEnd.upperBound...].split(separator: " ")
            guard fields.count > 1, pid_t(fields[1]) == supervisor else { continue }
            if fields[0] == "Z" { zombies.insert(pid) } else { alive.insert(pid) }
        }
        return (alive, zombies)
    }

    /// The log since the start, guarded by its condition.
    private let log = LogText()

    private final class LogText: @unchecked Sendable {
        let condition = NSCondition()
        var text = ""
    }

    /// The log once it holds `times` lines each containing every one of `needles` (or the time
    /// limit passed).
    func log(containing needles: String..., times: Int = 1, within seconds: Double = 10) throws -> String {
        try log(within: seconds, "\(times) log lines with \(needles)") { text in
            text.split(separator: "\n").count(where: { line in needles.allSatisfy { line.contains($0) } }) >= times
        }
    }

    /// Once the node's store listener is connected and its workers caught up (PostgreSQL): from
    /// then on a publish anywhere is acknowledged only once every worker of this node read it.
    func awaitListener() throws {
        _ = try log(containing: "caught up with the store's notifications", within: 30)
    }

    /// The log once `done` holds of it (or the time limit passed), awaited line by line.
    func log(within seconds: Double = 10, _ description: String, until done: (String) -> Bool) throws -> String {
        let deadline = Date(timeIntervalSinceNow: seconds)
        log.condition.lock()
        defer { log.condition.unlock() }
        while !done(log.text) {
            guard log.condition.wait(until: deadline) else {
                throw TestFailure("not \(description) in: \(log.text)")
            }
        }
        return log.text
    }

    /// Reads the log until the line that says where the server (or its supervisor) listens.
    /// - Returns: the port and the log read so far.
    private func waitForPort(workers: Int, deadline: Date, logged: (String) -> Void) throws -> (port: Int, log: String) {
        var text = ""
        let handle = output
        while true {
            var readable = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            let polled = poll(&readable, 1, milliseconds)
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else {
                process.signal(SIGKILL)
                throw TestFailure("server did not listen in time: \(text)")
            }
            let data = handle.availableData
            guard !data.isEmpty else { throw TestFailure("server exited before listening: \(text)") }
            text += String(decoding: data, as: UTF8.self)
            logged(text)
            for line in text.split(separator: "\n") where line.contains("listening") && (workers == 1 || line.contains("workers=")) {
                if let range = line.range(of: "address=127.0.0.1:") {
                    let digits = line[range.upperBound...].prefix { $0.isNumber }
                    if let port = Int(digits) { return (port, text) }
                }
            }
        }
    }

    /// A child of the supervisor that is not in `known`, as soon as it exists (a worker just
    /// spawned, before it ran any of its own code).
    /// - Throws: when none appears within `seconds`.
    func newChild(besides known: Set<pid_t>, within seconds: Double = 10) throws -> pid_t {
        let deadline = Date(timeIntervalSinceNow: seconds)
        // Nothing announces a spawn, so /proc is read again and again until it shows one.
        while Date() < deadline {
            if let child = children().alive.subtracting(known).first { return child }
        }
        throw TestFailure("no new worker within \(seconds) s")
    }

    func kill(_ signal: Int32) {
        process.signal(signal)
    }

    func waitForExit() -> Int32 {
        process.waitUntilExit().status
    }
}
