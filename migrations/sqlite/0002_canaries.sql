-- Staged publishes (docs/canary.md): a version served to a share of the instances before it
-- becomes the active version for everyone.

-- What a version did to a canary: 'CANARY' (it was published as one), 'PROMOTION' (it copies the
-- canary version `canary_source` for everyone) or 'ABORT' (it copies the stable version back for
-- the canary's instances); NULL for every other version.
ALTER TABLE template_versions ADD COLUMN canary_action TEXT
    CHECK (canary_action IN ('CANARY', 'PROMOTION', 'ABORT'));
ALTER TABLE template_versions ADD COLUMN canary_source INTEGER;

-- The running canary per (project, namespace), at most one. The active version of
-- template_heads stays the stable one; instances whose bucket for `seed` is below
-- `micro_percent` (of 10^8) are served `canary_version`.
CREATE TABLE template_canaries (
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
        REFERENCES template_versions (project, namespace, version_number) ON DELETE CASCADE
) STRICT;
