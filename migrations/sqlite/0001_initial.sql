-- Initial schema of the remote config store.
-- Connection settings are not part of the schema: every connection sets journal_mode=WAL
-- (persistent), synchronous=FULL and foreign_keys=ON when it opens (SQLiteDatabase), because
-- those pragmas cannot change inside the migration's transaction.
-- Times are integer milliseconds since the Unix epoch.

CREATE TABLE projects (
    id           TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 128),
    number       TEXT NOT NULL UNIQUE
                 CHECK (length(number) BETWEEN 1 AND 32 AND number NOT GLOB '*[^0-9]*'),
    display_name TEXT NOT NULL DEFAULT '',
    percent_seed TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL
) STRICT;

-- API keys are stored as hashes only.
CREATE TABLE api_keys (
    project    TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key_hash   TEXT NOT NULL,
    name       TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project, key_hash)
) STRICT;

CREATE INDEX api_keys_by_hash ON api_keys (key_hash);

-- Every published template version; gap-free per (project, namespace), oldest pruned by retention.
CREATE TABLE template_versions (
    project         TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    namespace       TEXT NOT NULL CHECK (namespace IN ('firebase', 'firebase-server')),
    version_number  INTEGER NOT NULL CHECK (version_number > 0),
    template_json   BLOB NOT NULL,
    update_time     INTEGER NOT NULL,
    update_user     TEXT,
    description     TEXT,
    update_origin   TEXT NOT NULL,
    update_type     TEXT NOT NULL
                    CHECK (update_type IN ('INCREMENTAL_UPDATE', 'FORCED_UPDATE', 'ROLLBACK')),
    rollback_source INTEGER,
    CHECK ((update_type = 'ROLLBACK') = (rollback_source IS NOT NULL)),
    PRIMARY KEY (project, namespace, version_number)
) STRICT;

-- The active (newest) version per (project, namespace). Publishers lock by updating this row,
-- and the foreign key keeps pruning from ever deleting the active version.
CREATE TABLE template_heads (
    project        TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    namespace      TEXT NOT NULL,
    active_version INTEGER NOT NULL,
    PRIMARY KEY (project, namespace),
    FOREIGN KEY (project, namespace, active_version)
        REFERENCES template_versions (project, namespace, version_number)
) STRICT;
