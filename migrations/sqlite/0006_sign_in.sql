-- Sign-in with OpenID Connect (docs/access.md): console sessions join the access records (every
-- worker keeps them in memory, so a signed-in call never queries the store), and each sign-in
-- under way keeps its state, nonce and PKCE verifier here until the provider sends the person
-- back; taking one deletes it, so a state is used once on every worker and node.
CREATE TABLE access_records_new (
    kind        TEXT NOT NULL CHECK (kind IN ('principal', 'membership', 'token', 'session')),
    id          TEXT NOT NULL CHECK (length(id) BETWEEN 1 AND 512),
    record      BLOB NOT NULL,
    update_time INTEGER NOT NULL,
    PRIMARY KEY (kind, id)
) STRICT;
INSERT INTO access_records_new SELECT kind, id, record, update_time FROM access_records;
DROP TABLE access_records;
ALTER TABLE access_records_new RENAME TO access_records;

CREATE TABLE sign_in_attempts (
    state_hash  TEXT PRIMARY KEY,
    record      BLOB NOT NULL,
    expire_time INTEGER NOT NULL
) STRICT;
