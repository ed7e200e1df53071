import Foundation

/// Renders any JSON as `path: value` lines, for answers whose exact shape rcctl does not
/// know (diff, evaluate). Object keys are sorted; array items are numbered from 0.
enum JSONOutline {
    /// Just enough JSON to walk; decoding tries Bool before numbers so `true` stays a word.
    private enum Node: Decodable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Node])
        case object([String: Node])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([Node].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: Node].self))
            }
        }
    }

    static func render(_ data: Data) -> String {
        guard let node = try? JSONDecoder().decode(Node.self, from: data) else {
            return String(decoding: data, as: UTF8.self)
        }
        var lines: [String] = []
        walk(node, path: "", into: &lines)
        return lines.isEmpty ? "(empty)" : lines.joined(separator: "\n")
    }

    private static func walk(_ node: Node, path: String, into lines: inout [String]) {
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
