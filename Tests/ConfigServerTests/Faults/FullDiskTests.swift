import Foundation
import Glibc
import TestSupport
import Testing

/// The one-node SQLite server on a data directory that fills up (a small tmpfs: needs root,
/// as CI runs): a publish gets a clear error at once and leaves nothing half-written, fetches
/// keep being served, and publishing works again once space is freed.
@Suite(.serialized, .timeLimit(.minutes(1))) final class FullDiskTests {
    let directory = "/tmp/rcs-full-disk-\(getpid())-\(UUID().uuidString.prefix(8))"

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let mounted = try Self.run("/bin/mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", directory)
        guard mounted.status == 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw TestFailure("cannot mount a 4 MiB tmpfs on \(directory) (the test needs root): \(mounted.output)")
        }
    }

    deinit {
        _ = try? Self.run("/bin/umount", "-l", directory)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func run(_ arguments: String...) throws -> (status: Int32, output: String) {
        let output = try ChildProcess.makePipe()
        let process: ChildProcess
        do {
            defer { close(output.write) }
            process = try ChildProcess(arguments[0], Array(arguments.dropFirst()), standardOutput: output.write, standardError: output.write)
        }
        let text = String(decoding: output.read.readDataToEndOfFile(), as: UTF8.self)
        return (process.waitUntilExit().status, text)
    }

    /// Fills the file system with one file until it refuses more.
    private func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        let block = [UInt8](repeating: 0x5A, count: 64 * 1024)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    @Test func aPublishOnAFullDiskFailsClearlyAndWorksAgainOnceSpaceIsFreed() throws {
        let daemon = try DaemonProcess(dataDir: directory + "/data", workers: 2)
        #expect(NodeCalls.publish(daemon.port, "before").status == 200)
        let filler = directory + "/filler"
        fill(filler)

        // Large enough that SQLite must grow its files.
        let large = String(repeating: "x", count: 300_000)
        let refused = NodeCalls.publish(daemon.port, large, limit: 5)
        #expect(refused.status == 507 && refused.text.contains("OUT_OF_SPACE"), "\(refused.status.map(String.init) ?? "none"): \(refused.text.prefix(300))")
        #expect(refused.seconds < 2, "the refusal took \(refused.seconds) s")
        let fetched = NodeCalls.fetch(daemon.port)
        #expect(fetched.status == 200 && fetched.value == "before", "fetches are served on a full disk: \(fetched)")

        try FileManager.default.removeItem(atPath: filler)
        let after = NodeCalls.publish(daemon.port, large)
        #expect(after.status == 200 && after.version == 2, "publishing works once space is freed, as version 2: \(after.status ?? 0)")
        let values = try NodeCalls.versions(daemon.port).map { ($0.version, $0.value?.count ?? 0) }
        #expect(values.map(\.0) == [2, 1] && values.first?.1 == large.count, "nothing half-written: \(values)")
        #expect(NodeCalls.fetch(daemon.port).value == large)
    }
}
