-- Initial schema of the remote config store on PostgreSQL: the tables and constraints of
-- migrations/sqlite/0001_initial.sql in PostgreSQL types, plus store_revision.
-- Times are bigint milliseconds since the Unix epoch; template JSON is kept as the exact bytes
-- published (bytea, not jsonb, which would reorder keys and drop duplicates).

CREATE TABLE projects (
    id           text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
    number       text NOT NULL UNIQUE CHECK (number ~ '^[0-9]{1,32}$'),
    display_name text NOT NULL DEFAULT '',
    percent_seed text NOT NULL DEFAULT '',
    created_at   bigint NOT NULL
);

-- API keys are stored as hashes only.
CREATE TABLE api_keys (
    project    text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key_hash   text NOT NULL,
    name       text NOT NULL DEFAULT '',
    created_at bigint NOT NULL,
    PRIMARY KEY (project, key_hash)
);

CREATE INDEX api_keys_by_hash ON api_keys (key_hash);

-- Every published template version; gap-free per (project, namespace), oldest pruned by retention.
CREATE TABLE template_versions (
    project         text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    namespace       text NOT NULL CHECK (namespace IN ('firebase', 'firebase-server')),
    version_number  bigint NOT NULL CHECK (version_number > 0),
    template_json   bytea NOT NULL,
    update_time     bigint NOT NULL,
    update_user     text,
    description     text,
    update_origin   text NOT NULL,
    update_type     text NOT NULL
                    CHECK (update_type IN ('INCREMENTAL_UPDATE', 'FORCED_UPDATE', 'ROLLBACK')),
    rollback_source bigint,
    CHECK ((update_type = 'ROLLBACK') = (rollback_source IS NOT NULL)),
    PRIMARY KEY (project, namespace, version_number)
);

-- The active (newest) version per (project, namespace). Every write to a template first locks
-- this row (SELECT ... FOR UPDATE), which serializes the writers of one template across nodes
-- and keeps version numbers gap-free. A first publish inserts the row with active_version 0
-- (ON CONFLICT DO NOTHING, so a second first publisher waits for the first) and points it at
-- version 1 before committing; the foreign key is checked at commit, so that placeholder can
-- never be committed and pruning can never delete the active version.
CREATE TABLE template_heads (
    project        text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    namespace      text NOT NULL,
    active_version bigint NOT NULL,
    PRIMARY KEY (project, namespace),
    FOREIGN KEY (project, namespace, active_version)
        REFERENCES template_versions (project, namespace, version_number)
        DEFERRABLE INITIALLY DEFERRED
);

-- One row counting committed writes: every write transaction increments it, so it changes
-- exactly when something was committed, by any node, and becomes visible together with that
-- change (PostgresTemplateStore.changeToken()).
CREATE TABLE store_revision (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    revision  bigint NOT NULL
);

INSERT INTO store_revision (singleton, revision) VALUES (true, 0);
