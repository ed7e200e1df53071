public import ConfigStore
public import Foundation

/// Sign-ins under way (`sign_in_attempts`); nothing is announced (no worker keeps them in memory).
extension PostgresTemplateStore {
    public func putSignInAttempt(
        stateHash: String, record: [UInt8], expireTime: Date, maxPending: Int
    ) throws(StoreError) -> Bool {
        let now = TemplateStoreRules.milliseconds(clock())
        return try read { connection in
            try connection.execute("DELETE FROM sign_in_attempts WHERE expire_time <= $1", [.integer(now)])
            // Not exact under concurrent sign-ins, which is enough for a bound.
            let pending = try connection.queryFirst("SELECT count(*) FROM sign_in_attempts") { $0.int64(at: 0) } ?? 0
            guard pending < maxPending else { return false }
            try connection.execute(
                "INSERT INTO sign_in_attempts (state_hash, record, expire_time) VALUES ($1, $2, $3)",
                [.text(stateHash), .bytes(record), .integer(TemplateStoreRules.milliseconds(expireTime))])
            return true
        }
    }

    public func takeSignInAttempt(stateHash: String) throws(StoreError) -> [UInt8]? {
        let now = TemplateStoreRules.milliseconds(clock())
        return try read { connection in
            // One statement: of two takers, the second deletes nothing and gets nothing.
            try connection.queryFirst(
                "DELETE FROM sign_in_attempts WHERE state_hash = $1 AND expire_time > $2 RETURNING record",
                [.text(stateHash), .integer(now)]
            ) { $0.bytes(at: 0) }
        }
    }
}
