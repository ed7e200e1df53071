-- Environments (docs/environments.md): every project has `production`, and may have others
-- (development, staging…) before it. A template of an environment other than production is
-- stored under the namespace `<environment>/<kind>` (`staging/firebase`); production's keep the
-- Firebase names, so every row written before environments is production's as it stands. The
-- same tables as migrations/sqlite/0012_environments.sql.
--
-- Each statement takes its lock only for a moment (no table is rewritten), so nodes keep serving
-- while one of them applies it.

-- The namespace check allowed the two Firebase names only.
ALTER TABLE template_versions DROP CONSTRAINT IF EXISTS template_versions_namespace_check;
ALTER TABLE template_versions ADD CONSTRAINT template_versions_namespace_length
    CHECK (length(namespace) BETWEEN 1 AND 64) NOT VALID;

-- The environment and version a promotion copied; NULL for every other version.
ALTER TABLE template_versions ADD COLUMN promoted_from_environment text;
ALTER TABLE template_versions ADD COLUMN promoted_from_version bigint;

-- A project's environments, production included, in the order a change moves through them
-- (`position` ascending; production's is the largest there is, so it stays last).
CREATE TABLE environments (
    project      text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id           text NOT NULL CHECK (length(id) BETWEEN 1 AND 30),
    display_name text NOT NULL DEFAULT '',
    position     bigint NOT NULL,
    soak_seconds bigint NOT NULL DEFAULT 0 CHECK (soak_seconds >= 0),
    created_at   bigint NOT NULL,
    PRIMARY KEY (project, id)
);

INSERT INTO environments (project, id, display_name, position, soak_seconds, created_at)
    SELECT id, 'production', 'Production', 1000000000, 0, created_at FROM projects;

-- A client API key serves one environment; every key made before is production's.
ALTER TABLE api_keys ADD COLUMN environment text NOT NULL DEFAULT 'production';
