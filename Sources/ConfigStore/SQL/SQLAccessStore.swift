import ConfigCore

/// `AccessStore`, written once for every engine. Every worker keeps principals, memberships,
/// tokens and policies in memory: their writes, and every delete, announce `access`. A session's
/// start and keep-alive announce nothing (the server looks a session up by id), but its end
/// does, so that it ends on every worker and node at once.
package struct SQLAccessStore<Engine: DatabaseEngine>: AccessStore {
    let engine: Engine

    package init(engine: Engine) {
        self.engine = engine
    }

    package func put(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError) {
        try TemplateStoreRules.validateAccessRecordID(id)
        let now = TemplateStoreRules.milliseconds(engine.clock())
        try engine.write(announcing: Self.announcement(of: kind)) { connection in
            try connection.run(
                """
                INSERT INTO access_records (kind, id, record, update_time) VALUES (?, ?, ?, ?)
                ON CONFLICT (kind, id) DO UPDATE SET record = excluded.record, update_time = excluded.update_time
                """,
                [.text(kind.rawValue), .text(id), .bytes(record), .integer(now)])
        }
    }

    package func update(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError) -> Bool {
        let now = TemplateStoreRules.milliseconds(engine.clock())
        return try engine.write(announcing: Self.announcement(of: kind)) { connection in
            try connection.run("UPDATE access_records SET record = ?, update_time = ? WHERE kind = ? AND id = ?",
                               [.bytes(record), .integer(now), .text(kind.rawValue), .text(id)]) > 0
        }
    }

    @discardableResult
    package func delete(_ kind: StoredAccessRecord.Kind, id: String) throws(StoreError) -> Bool {
        try engine.write(announcing: .access) { connection in
            try connection.run("DELETE FROM access_records WHERE kind = ? AND id = ?", [.text(kind.rawValue), .text(id)]) > 0
        }
    }

    package func record(_ kind: StoredAccessRecord.Kind, id: String) throws(StoreError) -> StoredAccessRecord? {
        try engine.read { connection in
            try connection.rows("SELECT \(StoreColumns.accessRecord) FROM access_records WHERE kind = ? AND id = ?",
                                [.text(kind.rawValue), .text(id)]) { try StoreColumns.decodeAccessRecord($0) }.first
        }
    }

    package func records(kinds: Set<StoredAccessRecord.Kind>) throws(StoreError) -> [StoredAccessRecord] {
        guard !kinds.isEmpty else { return [] }
        let values = kinds.map(\.rawValue).sorted().map { StoreValue.text($0) }
        return try engine.read { connection in
            try connection.rows(
                """
                SELECT \(StoreColumns.accessRecord) FROM access_records WHERE kind IN (\(Engine.Connection.parameters(values.count)))
                ORDER BY kind, id\(Engine.Connection.bytewiseCollation)
                """, values) { try StoreColumns.decodeAccessRecord($0) }
        }
    }

    package func putChangePolicy(_ policy: StoredChangePolicy) throws(StoreError) {
        let now = TemplateStoreRules.milliseconds(engine.clock())
        try engine.write(announcing: .access) { connection in
            try connection.run(
                """
                INSERT INTO change_policies (project, namespace, record, update_time) VALUES (?, ?, ?, ?)
                ON CONFLICT (project, namespace) DO UPDATE SET record = excluded.record, update_time = excluded.update_time
                """,
                [.text(policy.project), .text(policy.namespace.rawValue), .bytes(policy.record), .integer(now)])
        }
    }

    package func changePolicies() throws(StoreError) -> [StoredChangePolicy] {
        try engine.read { connection in
            try connection.rows(
                "SELECT \(StoreColumns.changePolicy) FROM change_policies ORDER BY project\(Engine.Connection.bytewiseCollation), namespace",
                []) { try StoreColumns.decodeChangePolicy($0) }
        }
    }

    /// A session is looked up by id where it is used: its own writes tell nobody.
    private static func announcement<Result>(of kind: StoredAccessRecord.Kind) -> Announcement<Result> {
        kind == .session ? .none : .access
    }
}
