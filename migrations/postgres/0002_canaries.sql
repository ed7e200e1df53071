-- Staged publishes (docs/canary.md): a version served to a share of the instances before it
-- becomes the active version for everyone. The same tables as migrations/sqlite/0002_canaries.sql.

-- What a version did to a canary: 'CANARY' (it was published as one), 'PROMOTION' (it copies the
-- canary version `canary_source` for everyone) or 'ABORT' (it copies the stable version back for
-- the canary's instances); NULL for every other version.
ALTER TABLE template_versions ADD COLUMN canary_action text
    CHECK (canary_action IN ('CANARY', 'PROMOTION', 'ABORT'));
ALTER TABLE template_versions ADD COLUMN canary_source bigint;

-- The running canary per (project, namespace), at most one. The active version of
-- template_heads stays the stable one; instances whose bucket for `seed` is below
-- `micro_percent` (of 10^8) are served `canary_version`.
CREATE TABLE template_canaries (
    project        text NOT NULL,
    namespace      text NOT NULL,
    canary_version bigint NOT NULL,
    micro_percent  bigint NOT NULL CHECK (micro_percent BETWEEN 1 AND 100000000),
    seed           text NOT NULL,
    started_at     bigint NOT NULL,
    updated_at     bigint NOT NULL,
    update_user    text,
    promote_at     bigint,
    PRIMARY KEY (project, namespace),
    FOREIGN KEY (project, namespace, canary_version)
        REFERENCES template_versions (project, namespace, version_number) ON DELETE CASCADE
);
