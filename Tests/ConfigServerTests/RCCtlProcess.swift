import Foundation
import Glibc
import TestSupport

/// What one `rcctl` run printed and how it exited.
struct RCCtlResult {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output parsed as a JSON object.
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
            throw TestFailure("rcctl printed no JSON object: \(stdout)")
        }
        return object
    }
}

/// The real `rcctl` executable, run as a child process against a server on loopback.
enum RCCtlProcess {
    static let token = "dev-admin-token"
    /// A run that takes longer than this is killed; the test then fails on its exit status.
    static let timeout: TimeInterval = 30

    /// Built next to the test bundle, like the server (the test target depends on `rcctl`).
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("rcctl")
    }

    /// The environment rcctl reads: RCS_URL and RCS_TOKEN, and `extra` (such as RCS_ENV),
    /// nothing inherited that could point it elsewhere.
    static func environment(port: Int, token: String?, extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RCS_") }
        environment["RCS_URL"] = "http://127.0.0.1:\(port)"
        if let token { environment["RCS_TOKEN"] = token }
        return environment.merging(extra) { $1 }
    }

    /// Runs `rcctl arguments...` to completion. Input and output are files, not pipes, so a
    /// large answer can never block the child while we wait for it, nor an early exit break a
    /// write of ours.
    static func run(_ arguments: [String], port: Int, token: String? = token, stdin: Data? = nil,
                    environment extra: [String: String] = [:]) throws -> RCCtlResult {
        try TemporaryDirectory.with("rcctl-run") { directory in
            try run(arguments, port: port, token: token, stdin: stdin, extra: extra, in: directory)
        }
    }

    /// ``run(_:port:token:stdin:environment:)`` with its files in `directory`.
    private static func run(_ arguments: [String], port: Int, token: String?, stdin: Data?, extra: [String: String],
                            in directory: URL) throws -> RCCtlResult {
        let inURL = directory.appendingPathComponent("stdin")
        let outURL = directory.appendingPathComponent("stdout"), errURL = directory.appendingPathComponent("stderr")
        try (stdin ?? Data()).write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)

        let input = open(inURL.path, O_RDONLY | O_CLOEXEC), output = open(outURL.path, O_WRONLY | O_CLOEXEC), errors = open(errURL.path, O_WRONLY | O_CLOEXEC)
        defer { [input, output, errors].forEach { close($0) } }
        let process = try ChildProcess(executable.path, arguments, environment: environment(port: port, token: token, extra: extra),
                                       standardInput: input, standardOutput: output, standardError: errors)
        let watchdog = DispatchWorkItem { process.signal(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let ended = process.waitUntilExit()
        watchdog.cancel()
        return RCCtlResult(
            status: ended.status,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// `rcctl watch` running in the background; its standard output arrives line by line.
final class RCCtlWatch {
    let process: ChildProcess
    private let lines = Lines()

    /// The lines printed so far, and how many were read, guarded by the condition.
    private final class Lines: @unchecked Sendable {
        let condition = NSCondition()
        var printed: [String] = []
        var read = 0
        var ended = false
    }

    init(_ arguments: [String], port: Int) throws {
        let output = try ChildProcess.makePipe()
        defer { close(output.write) }
        process = try ChildProcess(RCCtlProcess.executable.path, ["watch"] + arguments,
                                   environment: RCCtlProcess.environment(port: port, token: RCCtlProcess.token), standardOutput: output.write)
        // Ends when the child exits and its end of the pipe closes.
        let handle = output.read
        let lines = self.lines
        Thread.detachNewThread {
            var pending = ""
            while case let data = handle.availableData, !data.isEmpty {
                pending += String(decoding: data, as: UTF8.self)
                lines.condition.lock()
                while let newline = pending.firstIndex(of: "\n") {
                    lines.printed.append(String(pending[..<newline]))
                    pending = String(pending[pending.index(after: newline)...])
                }
                lines.condition.broadcast()
                lines.condition.unlock()
            }
            lines.condition.lock()
            lines.ended = true
            lines.condition.broadcast()
            lines.condition.unlock()
        }
    }

    /// The next line containing `text`, or nil when the watch ended, or `seconds` passed,
    /// without printing it.
    ///
    /// It blocks: call it from a synchronous test. An async test waiting for the line needs a
    /// thread of the cooperative pool to resume, which a full run's blocking suites can hold past
    /// the suite's time limit; a synchronous test already holds its thread.
    func firstLine(containing text: String, within seconds: Double = 30) -> String? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        lines.condition.lock()
        defer { lines.condition.unlock() }
        while true {
            while lines.read < lines.printed.count {
                let line = lines.printed[lines.read]
                lines.read += 1
                if line.contains(text) { return line }
            }
            if lines.ended || !lines.condition.wait(until: deadline) { return nil }
        }
    }

    /// Stops the watch (it runs until interrupted) and returns how it ended.
    func stop() -> Int32 {
        process.signal(SIGTERM)
        return process.waitUntilExit().status
    }
}
