import ConfigCore
import Foundation

/// Renders any JSON as `path: value` lines, for answers whose exact shape rcctl does not
/// know (diff, evaluate). Object keys are sorted; array items are numbered from 0.
enum JSONOutline {
    static func render(_ data: Data) -> String {
        guard let node = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            return String(decoding: data, as: UTF8.self)
        }
        let outline = lines(node)
        return outline.isEmpty ? "(empty)" : outline.joined(separator: "\n")
    }

    /// `node` as lines; with `omittingEmpty`, empty objects and arrays are left out, so a diff
    /// shows only what differs (no line at all when nothing does). Nulls stay: in a diff they
    /// say that a side has none.
    static func lines(_ node: JSONValue, omittingEmpty: Bool = false) -> [String] {
        var lines: [String] = []
        walk(node, path: "", omittingEmpty: omittingEmpty, into: &lines)
        return lines
    }

    private static func walk(_ node: JSONValue, path: String, omittingEmpty: Bool, into lines: inout [String]) {
        let label = path.isEmpty ? "" : "\(path): "
        switch node {
        case .object(let members):
            if members.isEmpty, !omittingEmpty { lines.append("\(label){}") }
            for key in members.keys.sorted() {
                walk(members[key]!, path: path.isEmpty ? key : "\(path).\(key)", omittingEmpty: omittingEmpty, into: &lines)
            }
        case .array(let items):
            if items.isEmpty, !omittingEmpty { lines.append("\(label)[]") }
            for (index, item) in items.enumerated() {
                walk(item, path: "\(path)[\(index)]", omittingEmpty: omittingEmpty, into: &lines)
            }
        case .null: lines.append("\(label)null")
        case .bool(let value): lines.append("\(label)\(value)")
        case .number(let value):
            lines.append(label + (value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)))
        case .string(let value): lines.append("\(label)\(value)")
        }
    }
}
