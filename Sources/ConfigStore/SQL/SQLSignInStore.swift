package import Foundation

/// `SignInStore`, written once for every engine. Nothing is announced: no worker keeps attempts
/// in memory.
package struct SQLSignInStore<Engine: DatabaseEngine>: SignInStore {
    let engine: Engine

    package init(engine: Engine) {
        self.engine = engine
    }

    package func putAttempt(stateHash: String, record: [UInt8], expireTime: Date, maxPending: Int) throws(StoreError) -> Bool {
        let now = TemplateStoreRules.milliseconds(engine.clock())
        return try engine.write(announcing: .none) { connection in
            try connection.run("DELETE FROM sign_in_attempts WHERE expire_time <= ?", [.integer(now)])
            // Not exact under concurrent sign-ins on PostgreSQL, which is enough for a bound.
            let pending = try connection.rows("SELECT count(*) FROM sign_in_attempts", []) { $0.int64(at: 0) }.first ?? 0
            guard pending < maxPending else { return false }
            try connection.run("INSERT INTO sign_in_attempts (state_hash, record, expire_time) VALUES (?, ?, ?)",
                               [.text(stateHash), .bytes(record), .integer(TemplateStoreRules.milliseconds(expireTime))])
            return true
        }
    }

    package func takeAttempt(stateHash: String) throws(StoreError) -> [UInt8]? {
        let now = TemplateStoreRules.milliseconds(engine.clock())
        return try engine.write(announcing: .none) { connection in
            // One statement: of two takers, the second deletes nothing and gets nothing.
            try connection.rows("DELETE FROM sign_in_attempts WHERE state_hash = ? AND expire_time > ? RETURNING record",
                                [.text(stateHash), .integer(now)]) { $0.bytes(at: 0) }.first
        }
    }
}
