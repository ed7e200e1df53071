import Foundation

/// Where a source tree names a template's keys: string literals equal to a key, and the
/// Remote Config and OpenFeature SDKs' accessors called with a literal key the template lacks.
///
/// Read by `rcctl refs`; a text scan, not a parse, so it finds what a reviewer would grep for:
/// `"welcome_message"` in Swift, Kotlin, Java, JavaScript/TypeScript, Dart and Python.
struct SourceReferences {
    /// A place in a file: its path relative to the scanned directory, and the 1-based line.
    struct Place: Hashable, Comparable, CustomStringConvertible {
        let file: String
        let line: Int
        var description: String { "\(file):\(line)" }
        static func < (a: Place, b: Place) -> Bool { (a.file, a.line) < (b.file, b.line) }
    }

    /// Template key → where a literal names it.
    private(set) var referenced: [String: [Place]] = [:]
    /// A key the template lacks → where an accessor reads it (such code always gets its in-app default).
    private(set) var unknown: [String: [Place]] = [:]
    /// Files read.
    private(set) var fileCount = 0

    static let extensions: Set<String> = ["swift", "kt", "kts", "java", "js", "jsx", "mjs", "cjs", "ts", "tsx", "dart", "py"]
    /// Folders of dependencies and build output, never a project's own code.
    static let skippedFolders: Set<String> = [
        ".git", ".build", "build", "node_modules", "Pods", "Carthage", ".dart_tool", "__pycache__", ".venv", "venv",
        "dist", ".gradle", "DerivedData",
    ]
    /// Larger files are generated or vendored.
    static let maxFileBytes = 2 << 20

    /// The SDK calls that read one key, with the key as a literal: Swift's `configValue(forKey:)`
    /// and `remoteConfig["key"]`, Android's and Flutter's `getString("key")` and the like, the JS
    /// SDK's `getValue(remoteConfig, "key")`, Python's `get_string("key")` (server templates),
    /// and OpenFeature's `getBooleanValue("key", …)` and `…Details`.
    private static let accessor = try! NSRegularExpression(pattern: [
        #"(?:\bconfigValue\s*\(\s*forKey\s*:\s*"#,
        #"|\b(?:get(?:String|Boolean|Bool|Long|Int|Double|Number|Value)"#,
        #"|get(?:Boolean|String|Number|Integer|Double|Object)(?:Value|Details)"#,
        #"|get_(?:string|boolean|bool|int|float|value))\s*\(\s*(?:[A-Za-z_][\w.]*\s*,\s*)?"#,
        #"|\b[Rr]emote[Cc]onfig\s*\[\s*)(["'`])([^"'`\\\n]+)\1"#,
    ].joined())

    /// Scans every source file under `directory` for the keys in `keys`.
    init(directory: URL, keys: Set<String>) throws {
        let root = directory.standardizedFileURL
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey, .fileSizeKey, .isSymbolicLinkKey])
        else { throw CocoaError(.fileReadNoSuchFile) }
        var files: [URL] = []
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: [.isDirectoryKey, .fileSizeKey, .isSymbolicLinkKey])
            if values?.isDirectory == true {
                if Self.skippedFolders.contains(url.lastPathComponent) { walker.skipDescendants() }
                continue
            }
            guard values?.isSymbolicLink != true, Self.extensions.contains(url.pathExtension.lowercased()),
                  (values?.fileSize ?? 0) <= Self.maxFileBytes else { continue }
            files.append(url)
        }
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for file in files.sorted(by: { $0.path < $1.path }) {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            fileCount += 1
            let path = file.standardizedFileURL.path
            scan(text, file: path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path, keys: keys)
        }
    }

    private mutating func scan(_ text: String, file: String, keys: Set<String>) {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let place = Place(file: file, line: index + 1)
            for literal in Self.literals(in: line) where keys.contains(literal) {
                if referenced[literal]?.last != place { referenced[literal, default: []].append(place) }
            }
            let lineText = String(line)
            let range = NSRange(lineText.startIndex..., in: lineText)
            for match in Self.accessor.matches(in: lineText, range: range) {
                guard let keyRange = Range(match.range(at: 2), in: lineText) else { continue }
                let key = String(lineText[keyRange])
                if !keys.contains(key), unknown[key]?.last != place { unknown[key, default: []].append(place) }
            }
        }
    }

    /// The contents of the single-line string literals on a line, quoted with `"`, `'` or `` ` ``,
    /// as written (escapes are not undone: a key never has one).
    static func literals(in line: Substring) -> [String] {
        var found: [String] = []
        var index = line.startIndex
        while index < line.endIndex {
            let quote = line[index]
            guard quote == "\"" || quote == "'" || quote == "`" else {
                index = line.index(after: index)
                continue
            }
            var end = line.index(after: index)
            var escaped = false
            while end < line.endIndex, escaped || line[end] != quote {
                escaped = !escaped && line[end] == "\\"
                end = line.index(after: end)
            }
            guard end < line.endIndex else { break }
            found.append(String(line[line.index(after: index)..<end]))
            index = line.index(after: end)
        }
        return found
    }

    /// The parameter keys of a template's JSON, at the top level and in groups.
    static func keys(ofTemplate data: Data) throws -> Set<String> {
        guard let template = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        var keys = Set(((template["parameters"] as? [String: Any]) ?? [:]).keys)
        for case let group as [String: Any] in ((template["parameterGroups"] as? [String: Any]) ?? [:]).values {
            keys.formUnion(((group["parameters"] as? [String: Any]) ?? [:]).keys)
        }
        return keys
    }
}
