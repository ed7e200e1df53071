-- What clients read (docs/insights.md). Each worker counts what it serves and adds its counts
-- here periodically; nothing here is announced (no worker keeps it in memory).
--
-- `usage_templates`: since when a template's evaluations are counted, and the served version
-- whose keys `usage_parameters` reflects (a worker records the head it serves when it moves on).
CREATE TABLE usage_templates (
    project       TEXT NOT NULL,
    namespace     TEXT NOT NULL,
    counted_since INTEGER NOT NULL,
    version       INTEGER NOT NULL,
    PRIMARY KEY (project, namespace)
) STRICT;

-- One row per parameter of each served template (and per key evaluated before its version was
-- recorded: `publish_time` NULL until it is). `stale_reason` is set once a `parameter.stale`
-- event was written for it, and cleared when it is no longer stale.
CREATE TABLE usage_parameters (
    project            TEXT NOT NULL,
    namespace          TEXT NOT NULL,
    parameter          TEXT NOT NULL,
    publish_time       INTEGER,
    last_evaluate_time INTEGER,
    stale_reason       TEXT,
    PRIMARY KEY (project, namespace, parameter)
) STRICT;

-- Evaluations per parameter, hour bucket (ms of its start), source and served value (a digest).
CREATE TABLE usage_sources (
    project      TEXT NOT NULL,
    namespace    TEXT NOT NULL,
    parameter    TEXT NOT NULL,
    hour         INTEGER NOT NULL,
    source       TEXT NOT NULL,
    value_digest INTEGER NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (project, namespace, parameter, hour, source, value_digest)
) STRICT;

CREATE INDEX usage_sources_by_hour ON usage_sources (hour);

-- Evaluations by the clients' app version and platform, per served version: `parameter` is ''
-- for answers that evaluate every key of the version (a fetch, an OpenFeature bulk evaluation),
-- which a report expands into the keys `usage_versions` lists; else the one flag evaluated.
CREATE TABLE usage_clients (
    project   TEXT NOT NULL,
    namespace TEXT NOT NULL,
    version   INTEGER NOT NULL,
    parameter TEXT NOT NULL,
    hour      INTEGER NOT NULL,
    dimension TEXT NOT NULL CHECK (dimension IN ('appVersion', 'platform')),
    value     TEXT NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (project, namespace, version, parameter, hour, dimension, value)
) STRICT;

CREATE INDEX usage_clients_by_hour ON usage_clients (hour);

-- The keys of each version counted in `usage_clients` (a JSON array).
CREATE TABLE usage_versions (
    project   TEXT NOT NULL,
    namespace TEXT NOT NULL,
    version   INTEGER NOT NULL,
    keys      BLOB NOT NULL,
    PRIMARY KEY (project, namespace, version)
) STRICT;

-- A project's stale days (30 without a row).
CREATE TABLE usage_settings (
    project    TEXT PRIMARY KEY,
    stale_days INTEGER NOT NULL
) STRICT;

-- Parameters marked permanent (kill switches): never stale.
CREATE TABLE usage_permanent (
    project   TEXT NOT NULL,
    namespace TEXT NOT NULL,
    parameter TEXT NOT NULL,
    mark_time INTEGER NOT NULL,
    marked_by TEXT NOT NULL,
    PRIMARY KEY (project, namespace, parameter)
) STRICT;
