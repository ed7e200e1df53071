import Foundation
import Glibc

/// The real `remote-config-server` executable, started as a child process on a free port.
final class DaemonProcess {
    let process = Process()
    private let output = Pipe()
    private(set) var port = 0

    /// The executable built next to the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("remote-config-server")
    }

    init(dataDir: String, workers: Int, config: String = "config/remote-config.json", extraEnvironment: [String: String] = [:]) throws {
        process.executableURL = Self.executable
        process.arguments = ["--port", "0", "--data-dir", dataDir, "--workers", "\(workers)", "--config", config]
        var environment = ProcessInfo.processInfo.environment
        environment["RCS_LOG_LEVEL"] = "info"
        environment.merge(extraEnvironment) { $1 }
        process.environment = environment
        process.standardError = output
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        port = try waitForPort(workers: workers)
        // Keep draining the log so a chatty server never blocks on a full pipe; keep it for
        // tests that read it.
        let handle = output.fileHandleForReading
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

    /// The log written since the server listened, guarded by its condition.
    private let log = LogText()

    private final class LogText: @unchecked Sendable {
        let condition = NSCondition()
        var text = ""
    }

    /// The log once it holds a line containing `needle` (or the time limit passed).
    func log(containing needle: String, within seconds: Double = 10) throws -> String {
        let deadline = Date(timeIntervalSinceNow: seconds)
        log.condition.lock()
        defer { log.condition.unlock() }
        while !log.text.split(separator: "\n").contains(where: { $0.contains(needle) }) {
            guard log.condition.wait(until: deadline) else { throw TestFailure("no log line with \(needle) in: \(log.text)") }
        }
        return log.text
    }

    /// Reads the log until the line that says where the server (or its supervisor) listens.
    private func waitForPort(workers: Int) throws -> Int {
        var text = ""
        let handle = output.fileHandleForReading
        while true {
            let data = handle.availableData
            guard !data.isEmpty else { throw TestFailure("server exited before listening: \(text)") }
            text += String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n") where line.contains("listening") && (workers == 1 || line.contains("workers=")) {
                if let range = line.range(of: "address=127.0.0.1:") {
                    let digits = line[range.upperBound...].prefix { $0.isNumber }
                    if let port = Int(digits) { return port }
                }
            }
        }
    }

    func kill(_ signal: Int32) {
        Glibc.kill(process.processIdentifier, signal)
    }

    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
