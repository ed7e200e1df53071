import Foundation
import Testing

/// A worker's threads carry their names where `top -H`, `ps -L` and `perf` show them, so that
/// an operator can tell the event loop from the catch-up.
@Suite struct ThreadNameTests {
    @Test func aServersThreadsAreNamedForTheKernel() throws {
        let server = try TestServer()
        // Answered by the loop: its thread has run.
        #expect(try server.request("GET", "/healthz").status == 200)
        let names = try Set(FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").map { task in
            try String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        })
        for expected in ["rcs-loop-0", "rcs-catch-up"] {
            #expect(names.contains(expected), "no thread named \(expected) among \(names.sorted())")
        }
    }
}
