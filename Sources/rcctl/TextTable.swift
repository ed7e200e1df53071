import Foundation

/// Rows of text in aligned columns, for people.
enum TextTable {
    /// `header` and `rows` with each column padded to its widest cell (the last left as it is),
    /// separated by two spaces.
    static func render(header: [String], rows: [[String]]) -> String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            var line = row.enumerated().map { column, text in
                column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}
