-- Environments (docs/environments.md): every project has `production`, and may have others
-- (development, staging…) before it. A template of an environment other than production is
-- stored under the namespace `<environment>/<kind>` (`staging/firebase`); production's keep the
-- Firebase names, so every row written before environments is production's as it stands.

-- The namespace check of template_versions allowed the two Firebase names only. SQLite cannot drop
-- a check, so the three template tables are made again without it, with the same columns, keys
-- and data. The children are copied before their parent is dropped (its implicit DELETE would
-- otherwise cascade to them), and renaming the new parent renames the references to it.
CREATE TABLE template_versions_new (
    project         TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    namespace       TEXT NOT NULL CHECK (length(namespace) BETWEEN 1 AND 64),
    version_number  INTEGER NOT NULL CHECK (version_number > 0),
    template_json   BLOB NOT NULL,
    update_time     INTEGER NOT NULL,
    update_user     TEXT,
    description     TEXT,
    update_origin   TEXT NOT NULL,
    update_type     TEXT NOT NULL
                    CHECK (update_type IN ('INCREMENTAL_UPDATE', 'FORCED_UPDATE', 'ROLLBACK')),
    rollback_source INTEGER,
    canary_action   TEXT CHECK (canary_action IN ('CANARY', 'PROMOTION', 'ABORT')),
    canary_source   INTEGER,
    -- The environment and version a promotion copied; NULL for every other version.
    promoted_from_environment TEXT,
    promoted_from_version     INTEGER,
    CHECK ((update_type = 'ROLLBACK') = (rollback_source IS NOT NULL)),
    PRIMARY KEY (project, namespace, version_number)
) STRICT;

CREATE TABLE template_heads_new (
    project        TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    namespace      TEXT NOT NULL,
    active_version INTEGER NOT NULL,
    PRIMARY KEY (project, namespace),
    FOREIGN KEY (project, namespace, active_version)
        REFERENCES template_versions_new (project, namespace, version_number)
) STRICT;

CREATE TABLE template_canaries_new (
    project        TEXT NOT NULL,
    namespace      TEXT NOT NULL,
    canary_version INTEGER NOT NULL,
    micro_percent  INTEGER NOT NULL CHECK (micro_percent BETWEEN 1 AND 100000000),
    seed           TEXT NOT NULL,
    started_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    update_user    TEXT,
    promote_at     INTEGER,
    PRIMARY KEY (project, namespace),
    FOREIGN KEY (project, namespace, canary_version)
        REFERENCES template_versions_new (project, namespace, version_number) ON DELETE CASCADE
) STRICT;

INSERT INTO template_versions_new (project, namespace, version_number, template_json, update_time, update_user, description,
                                   update_origin, update_type, rollback_source, canary_action, canary_source)
    SELECT project, namespace, version_number, template_json, update_time, update_user, description,
           update_origin, update_type, rollback_source, canary_action, canary_source
    FROM template_versions;
INSERT INTO template_heads_new (project, namespace, active_version)
    SELECT project, namespace, active_version FROM template_heads;
INSERT INTO template_canaries_new (project, namespace, canary_version, micro_percent, seed, started_at, updated_at,
                                   update_user, promote_at)
    SELECT project, namespace, canary_version, micro_percent, seed, started_at, updated_at, update_user, promote_at
    FROM template_canaries;

DROP TABLE template_canaries;
DROP TABLE template_heads;
DROP TABLE template_versions;
ALTER TABLE template_versions_new RENAME TO template_versions;
ALTER TABLE template_heads_new RENAME TO template_heads;
ALTER TABLE template_canaries_new RENAME TO template_canaries;

-- A project's environments, production included, in the order a change moves through them
-- (`position` ascending; production's is the largest there is, so it stays last).
CREATE TABLE environments (
    project      TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id           TEXT NOT NULL CHECK (length(id) BETWEEN 1 AND 30),
    display_name TEXT NOT NULL DEFAULT '',
    position     INTEGER NOT NULL,
    soak_seconds INTEGER NOT NULL DEFAULT 0 CHECK (soak_seconds >= 0),
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (project, id)
) STRICT;

INSERT INTO environments (project, id, display_name, position, soak_seconds, created_at)
    SELECT id, 'production', 'Production', 1000000000, 0, created_at FROM projects;

-- A client API key serves one environment; every key made before is production's.
ALTER TABLE api_keys ADD COLUMN environment TEXT NOT NULL DEFAULT 'production';
