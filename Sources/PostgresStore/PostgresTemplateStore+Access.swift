public import ConfigStore

/// Principals, memberships and tokens (`access_records`); every write notifies `projects`.
extension PostgresTemplateStore {
    public func putAccessRecord(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError) {
        try TemplateStoreRules.validateAccessRecordID(id)
        let now = TemplateStoreRules.milliseconds(clock())
        try write { connection in
            try connection.execute(
                """
                INSERT INTO access_records (kind, id, record, update_time) VALUES ($1, $2, $3, $4)
                ON CONFLICT (kind, id) DO UPDATE SET record = excluded.record, update_time = excluded.update_time
                """,
                [.text(kind.rawValue), .text(id), .bytes(record), .integer(now)])
            return ((), .projects)
        }
    }

    public func updateAccessRecord(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError) -> Bool {
        let now = TemplateStoreRules.milliseconds(clock())
        return try write { connection in
            let updated = try connection.execute(
                "UPDATE access_records SET record = $1, update_time = $2 WHERE kind = $3 AND id = $4",
                [.bytes(record), .integer(now), .text(kind.rawValue), .text(id)]
            ).affectedRows > 0
            return (updated, .projects)
        }
    }

    public func deleteAccessRecord(_ kind: StoredAccessRecord.Kind, id: String) throws(StoreError) -> Bool {
        try write { connection in
            let deleted = try connection.execute(
                "DELETE FROM access_records WHERE kind = $1 AND id = $2", [.text(kind.rawValue), .text(id)]
            ).affectedRows > 0
            return (deleted, .projects)
        }
    }

    public func accessRecords() throws(StoreError) -> [StoredAccessRecord] {
        try read { connection in
            try connection.query("SELECT \(StoreColumns.accessRecord) FROM access_records ORDER BY kind, id COLLATE \"C\"") {
                try StoreColumns.decodeAccessRecord($0)
            }
        }
    }
}
