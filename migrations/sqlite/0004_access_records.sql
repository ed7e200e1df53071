-- Who may do what (docs/access.md): principals, their roles per project and their tokens, one
-- JSON record each, keyed by kind and id. They are few, and every worker reads all of them into
-- memory, so a permission check never queries the store. Token secrets are kept as hashes only.
CREATE TABLE access_records (
    kind        TEXT NOT NULL CHECK (kind IN ('principal', 'membership', 'token')),
    id          TEXT NOT NULL CHECK (length(id) BETWEEN 1 AND 512),
    record      BLOB NOT NULL,
    update_time INTEGER NOT NULL,
    PRIMARY KEY (kind, id)
) STRICT;
