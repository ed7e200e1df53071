import Foundation
import Testing

/// A worker's threads carry their names where `top -H`, `ps -L` and `perf` show them, so that
/// an operator can tell the event loop from the catch-up.
@Suite struct ThreadNameTests {
    @Test func aServersThreadsAreNamedForTheKernel() throws {
        // Named before the server is returned: nothing to wait for.
        let server = try TestServer()
        _ = server.port
        let names = try Set(FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").map { task in
            try String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        })
        for expected in ["rcs-loop-0", "rcs-catch-up"] {
            #expect(names.contains(expected), "no thread named \(expected) among \(names.sorted())")
        }
    }
}
