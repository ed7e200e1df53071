import Foundation
import Glibc
import ServerCore

/// A node's id, kept in its data directory (`node-id`, made on its first start): the same
/// across restarts, so that a restarted node's listener finds and ends the session its
/// predecessor left on the database, and distinct between nodes whose host name and port are
/// the same (containers, each in a network namespace of its own).
enum NodeIdentity {
    static let fileName = "node-id"

    /// The id kept in `directory`, made and kept there if there is none.
    /// - Throws: `ConfigurationError` when the directory cannot keep one, or holds a bad one.
    static func id(in directory: String) throws -> String {
        let file = URL(fileURLWithPath: directory).appendingPathComponent(fileName)
        if let kept = read(file) { return kept }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // Written aside, then linked into place (never replacing): of workers starting at
            // the same moment, every one reads the id that was linked first.
            let candidate = file.appendingPathExtension("\(getpid())")
            try Data((fresh() + "\n").utf8).write(to: candidate)
            defer { unlink(candidate.path) }
            guard link(candidate.path, file.path) == 0 || errno == EEXIST else {
                throw ConfigurationError("errno \(errno)")
            }
        } catch {
            throw ConfigurationError("cannot keep the node's id in \(file.path): \(error)")
        }
        guard let kept = read(file) else {
            throw ConfigurationError("\(file.path) holds no node id (letters, digits and '-', at most 32); remove it to make a new one")
        }
        return kept
    }

    /// 12 hex digits: distinct among any realistic number of nodes.
    private static func fresh() -> String {
        let digits = String(UInt64.random(in: 0..<(1 << 48)), radix: 16)
        return String(repeating: "0", count: 12 - digits.count) + digits
    }

    /// The file's id, if it holds a valid one.
    private static func read(_ file: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: file.path),
              let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
              (1...32).contains(text.count),
              text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { return nil }
        return text
    }
}
