import Foundation

/// Writing to stdout, stderr and files.
enum Console {
    /// One line on standard output, unbuffered so `watch` output appears at once in pipes.
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    static func write(_ data: Data) {
        FileHandle.standardOutput.write(data)
        if data.last != UInt8(ascii: "\n") { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }

    /// The contents of `path` (`-` for stdin).
    static func read(_ path: String) throws(CLIError) -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .usage("cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// `data` (read from `name`) as a JSON object.
    static func readJSONObject(_ data: Data, name: String) throws(CLIError) -> [String: Any] {
        let name = name == "-" ? "standard input" : name
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .usage("\(name) is not valid JSON: \(error.localizedDescription)")
        }
        guard let dictionary = object as? [String: Any] else { throw .usage("\(name) must hold a JSON object") }
        return dictionary
    }

    static func writeFile(_ data: Data, to path: String) throws(CLIError) {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .usage("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// `data` re-indented for people (sorted keys); unchanged when it is not JSON.
    static func prettyJSON(_ data: Data) -> Data {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
              let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return data }
        return pretty
    }
}
