import ConfigCore
import Foundation

/// How one template's counts of a batch are written (`SQLUsageStore.record`): SQL both engines
/// read the same. Every write of a template's usage takes its `usage_templates` row first, so
/// that the workers and nodes adding counts to one template run one after the other and never
/// lock its other rows in two orders; rows are written sorted, for the same reason.
enum UsageRecording {
    /// Rows per `INSERT`: well under either engine's limit of parameters.
    static let rowsPerStatement = 100

    /// Takes the template's row (made, counted from `time`, if it is the first count): on
    /// PostgreSQL the no-op update locks it until the transaction ends.
    static func lockTemplate(_ key: TemplateKey, countedSince time: Int64, on connection: some StoreStatements) throws {
        try connection.run(
            """
            INSERT INTO usage_templates (project, namespace, counted_since, version) VALUES (?, ?, ?, 0)
            ON CONFLICT (project, namespace) DO UPDATE SET version = usage_templates.version
            """,
            [.text(key.project), .text(key.namespace.rawValue), .integer(time)])
    }

    static func record(_ usage: TemplateUsage, hour: Int64, time: Int64, on connection: some StoreStatements) throws {
        let project = StoreValue.text(usage.key.project), namespace = StoreValue.text(usage.key.namespace.rawValue)
        try lockTemplate(usage.key, countedSince: time, on: connection)
        if let head = usage.head { try recordHead(head, project: project, namespace: namespace, on: connection) }
        try insert(
            into: "usage_parameters (project, namespace, parameter, last_evaluate_time)",
            rows: usage.lastEvaluations.sorted { $0.key < $1.key }.map {
                [project, namespace, .text($0.key), .integer(TemplateStoreRules.milliseconds($0.value))]
            },
            """
            ON CONFLICT (project, namespace, parameter) DO UPDATE SET last_evaluate_time = CASE
                WHEN usage_parameters.last_evaluate_time IS NULL OR usage_parameters.last_evaluate_time < excluded.last_evaluate_time
                THEN excluded.last_evaluate_time ELSE usage_parameters.last_evaluate_time END
            """, on: connection)
        let uses = usage.uses.filter { $0.value > 0 }.sorted {
            ($0.key.key, $0.key.source, $0.key.valueDigest) < ($1.key.key, $1.key.source, $1.key.valueDigest)
        }
        try add(
            to: "usage_sources", keyedBy: ["parameter", "hour", "source", "value_digest"],
            rows: uses.map {
                [project, namespace, .text($0.key.key), .integer(hour), .text($0.key.source), .integer($0.key.valueDigest), .integer($0.value)]
            },
            on: connection)
        let clients = cleaned(usage.clients).sorted {
            ($0.key.version, $0.key.parameter ?? "", $0.key.dimension.rawValue, $0.key.value)
                < ($1.key.version, $1.key.parameter ?? "", $1.key.dimension.rawValue, $1.key.value)
        }
        try add(
            to: "usage_clients", keyedBy: ["version", "parameter", "hour", "dimension", "value"],
            rows: clients.map {
                [project, namespace, .integer($0.key.version), .text($0.key.parameter ?? ""), .integer(hour),
                 .text($0.key.dimension.rawValue), .text($0.key.value), .integer($0.value)]
            },
            on: connection)
        try insert(
            into: "usage_versions (project, namespace, version, keys)",
            rows: usage.versionKeys.sorted { $0.key < $1.key }.map {
                [project, namespace, .integer($0.key), .bytes(Array(TemplateJSON.encode($0.value.sorted())))]
            },
            "ON CONFLICT (project, namespace, version) DO NOTHING", on: connection)
    }

    /// Records the keys of a head newer than the one recorded: new keys from its publish time, a
    /// key first counted before its head was recorded given that time, removed keys forgotten.
    private static func recordHead<Connection: StoreStatements>(
        _ head: ServedHead, project: StoreValue, namespace: StoreValue, on connection: Connection
    ) throws {
        let version = StoreValue.integer(head.version)
        let moved = try connection.run(
            "UPDATE usage_templates SET version = ? WHERE project = ? AND namespace = ? AND version < ?", [version, project, namespace, version])
        guard moved > 0 else { return }
        let keys = Set(head.keys)
        let known = try connection.rows("SELECT parameter FROM usage_parameters WHERE project = ? AND namespace = ?", [project, namespace]) {
            $0.text(at: 0)
        }
        let removed = known.filter { !keys.contains($0) }.sorted()
        for start in stride(from: 0, to: removed.count, by: rowsPerStatement) {
            let chunk = removed[start..<min(start + rowsPerStatement, removed.count)]
            try connection.run(
                "DELETE FROM usage_parameters WHERE project = ? AND namespace = ? AND parameter IN (\(Connection.parameters(chunk.count)))",
                [project, namespace] + chunk.map { .text($0) })
        }
        let publishTime = StoreValue.integer(TemplateStoreRules.milliseconds(head.publishTime))
        try insert(
            into: "usage_parameters (project, namespace, parameter, publish_time)",
            rows: keys.sorted().map { [project, namespace, .text($0), publishTime] },
            """
            ON CONFLICT (project, namespace, parameter) DO UPDATE SET
                publish_time = COALESCE(usage_parameters.publish_time, excluded.publish_time)
            """, on: connection)
    }

    /// `clients` with each value as stored: no NUL (PostgreSQL text cannot hold one), at most
    /// `ClientDimension.maxValueBytes` bytes (cut on a character), empty as `notSet`; values that
    /// become equal are summed.
    static func cleaned(_ clients: [ClientCount: Int64]) -> [ClientCount: Int64] {
        var result: [ClientCount: Int64] = [:]
        for (client, count) in clients where count > 0 {
            var cleaned = client
            cleaned.value = storedValue(client.value)
            result[cleaned, default: 0] += count
        }
        return result
    }

    static func storedValue(_ value: String) -> String {
        var text = value.contains("\0") ? value.replacingOccurrences(of: "\0", with: "\u{FFFD}") : value
        if text.utf8.count > ClientDimension.maxValueBytes {
            var cut = ""
            for character in text {
                guard cut.utf8.count + character.utf8.count <= ClientDimension.maxValueBytes else { break }
                cut.append(character)
            }
            text = cut
        }
        return text.isEmpty ? ClientDimension.notSet : text
    }

    /// Adds `rows` (project, namespace, the `keys` columns, then the count) to the counts of
    /// `table`: a row new to it is inserted, else its count grows.
    private static func add<Connection: StoreStatements>(
        to table: String, keyedBy keys: [String], rows: [[StoreValue]], on connection: Connection
    ) throws {
        let columns = (["project", "namespace"] + keys).joined(separator: ", ")
        try insert(into: "\(table) (\(columns), count)", rows: rows,
                   "ON CONFLICT (\(columns)) DO UPDATE SET count = \(table).count + excluded.count", on: connection)
    }

    /// Inserts `rows` into `table` (its columns named) with `conflict` as the `ON CONFLICT` clause,
    /// `rowsPerStatement` rows per statement. Rows hold no NULL: PostgreSQL would take a NULL of a
    /// multi-row `VALUES` for text.
    static func insert<Connection: StoreStatements>(
        into table: String, rows: [[StoreValue]], _ conflict: String, on connection: Connection
    ) throws {
        guard let width = rows.first?.count else { return }
        let row = "(" + Connection.parameters(width) + ")"
        for start in stride(from: 0, to: rows.count, by: rowsPerStatement) {
            let chunk = rows[start..<min(start + rowsPerStatement, rows.count)]
            try connection.run(
                "INSERT INTO \(table) VALUES " + Array(repeating: row, count: chunk.count).joined(separator: ", ") + " " + conflict,
                chunk.flatMap { $0 })
        }
    }
}
