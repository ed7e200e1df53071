/// Principals, memberships and tokens (`access_records`).
extension SQLiteTemplateStore {
    public func putAccessRecord(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError) {
        try TemplateStoreRules.validateAccessRecordID(id)
        let now = TemplateStoreRules.milliseconds(clock())
        try write { database in
            try database.execute(
                """
                INSERT INTO access_records (kind, id, record, update_time) VALUES (?, ?, ?, ?)
                ON CONFLICT (kind, id) DO UPDATE SET record = excluded.record, update_time = excluded.update_time
                """,
                [.text(kind.rawValue), .text(id), .blob(record), .integer(now)])
        }
    }

    public func updateAccessRecord(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError) -> Bool {
        let now = TemplateStoreRules.milliseconds(clock())
        return try write { database in
            try database.execute(
                "UPDATE access_records SET record = ?, update_time = ? WHERE kind = ? AND id = ?",
                [.blob(record), .integer(now), .text(kind.rawValue), .text(id)]) > 0
        }
    }

    public func deleteAccessRecord(_ kind: StoredAccessRecord.Kind, id: String) throws(StoreError) -> Bool {
        try write { database in
            try database.execute("DELETE FROM access_records WHERE kind = ? AND id = ?", [.text(kind.rawValue), .text(id)]) > 0
        }
    }

    public func accessRecords() throws(StoreError) -> [StoredAccessRecord] {
        try read { database in
            try database.query("SELECT \(StoreColumns.accessRecord) FROM access_records ORDER BY kind, id") {
                try StoreColumns.decodeAccessRecord($0)
            }
        }
    }
}
