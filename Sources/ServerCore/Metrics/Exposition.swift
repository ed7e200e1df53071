/// Joins the Prometheus expositions of several workers into one scrape.
///
/// Every worker labels its samples `worker="<index>"`, so nothing is summed here: the text
/// format only asks that each family's samples form one group under a single `# HELP` and
/// `# TYPE`, which a plain concatenation would break.
enum Exposition {
    /// Families in order of first appearance; per family, the samples of each text in order.
    static func merge(_ texts: [String]) -> String {
        var order: [String] = []
        var headers: [String: [Substring]] = [:]
        var samples: [String: [Substring]] = [:]
        for text in texts {
            var family = ""
            for line in text.split(separator: "\n") {
                if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                    family = String(line.dropFirst(7).prefix { $0 != " " })
                    if headers[family] == nil { order.append(family) }
                    if headers[family, default: []].count < 2 { headers[family, default: []].append(line) }
                } else if !line.hasPrefix("#") {
                    samples[family, default: []].append(line)
                }
            }
        }
        var out = ""
        for family in order {
            for line in headers[family] ?? [] { out += line + "\n" }
            for line in samples[family] ?? [] { out += line + "\n" }
        }
        return out
    }

    /// `# HELP`, `# TYPE` and one unlabelled sample.
    static func gauge(_ name: String, help: String, value: Int) -> String {
        "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(value)\n"
    }
}
