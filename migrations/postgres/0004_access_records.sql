-- Who may do what (docs/access.md): principals, their roles per project and their tokens, one
-- JSON record each, keyed by kind and id. They are few, and every worker reads all of them into
-- memory, so a permission check never queries the store. Token secrets are kept as hashes only.
CREATE TABLE access_records (
    kind        text   NOT NULL CHECK (kind IN ('principal', 'membership', 'token')),
    id          text   NOT NULL CHECK (length(id) BETWEEN 1 AND 512),
    record      bytea  NOT NULL,
    update_time bigint NOT NULL,
    PRIMARY KEY (kind, id)
);
