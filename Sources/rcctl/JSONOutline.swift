import ConfigCore
import Foundation

/// Renders any JSON as `path: value` lines, for answers whose exact shape rcctl does not
/// know (diff, evaluate). Object keys are sorted; array items are numbered from 0.
enum JSONOutline {
    static func render(_ data: Data) -> String {
        guard let node = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            return String(decoding: data, as: UTF8.self)
        }
        var lines: [String] = []
        walk(node, path: "", into: &lines)
        return lines.isEmpty ? "(empty)" : lines.joined(separator: "\n")
    }

    private static func walk(_ node: JSONValue, path: String, into lines: inout [String]) {
        let label = path.isEmpty ? "" : "\(path): "
        switch node {
        case .object(let members):
            if members.isEmpty { lines.append("\(label){}") }
            for key in members.keys.sorted() {
                walk(members[key]!, path: path.isEmpty ? key : "\(path).\(key)", into: &lines)
            }
        case .array(let items):
            if items.isEmpty { lines.append("\(label)[]") }
            for (index, item) in items.enumerated() {
                walk(item, path: "\(path)[\(index)]", into: &lines)
            }
        case .null: lines.append("\(label)null")
        case .bool(let value): lines.append("\(label)\(value)")
        case .number(let value):
            lines.append(label + (value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)))
        case .string(let value): lines.append("\(label)\(value)")
        }
    }
}
