public import Foundation

/// Sign-ins under way (`sign_in_attempts`).
extension SQLiteTemplateStore {
    public func putSignInAttempt(
        stateHash: String, record: [UInt8], expireTime: Date, maxPending: Int
    ) throws(StoreError) -> Bool {
        let now = TemplateStoreRules.milliseconds(clock())
        return try write { database in
            try database.execute("DELETE FROM sign_in_attempts WHERE expire_time <= ?", [.integer(now)])
            let pending = try database.queryFirst("SELECT count(*) FROM sign_in_attempts") { $0.int64(at: 0) } ?? 0
            guard pending < maxPending else { return false }
            try database.execute(
                "INSERT INTO sign_in_attempts (state_hash, record, expire_time) VALUES (?, ?, ?)",
                [.text(stateHash), .blob(record), .integer(TemplateStoreRules.milliseconds(expireTime))])
            return true
        }
    }

    public func takeSignInAttempt(stateHash: String) throws(StoreError) -> [UInt8]? {
        let now = TemplateStoreRules.milliseconds(clock())
        return try write { database in
            try database.queryFirst(
                "DELETE FROM sign_in_attempts WHERE state_hash = ? AND expire_time > ? RETURNING record",
                [.text(stateHash), .integer(now)]
            ) { $0.bytes(at: 0) }
        }
    }
}
