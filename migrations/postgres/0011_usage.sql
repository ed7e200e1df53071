-- What clients read (docs/insights.md). Each worker counts what it serves and adds its counts
-- here periodically; nothing here is announced (no worker keeps it in memory).
--
-- `usage_templates`: since when a template's evaluations are counted, and the served version
-- whose keys `usage_parameters` reflects (a worker records the head it serves when it moves on).
CREATE TABLE usage_templates (
    project       text NOT NULL,
    namespace     text NOT NULL,
    counted_since bigint NOT NULL,
    version       bigint NOT NULL,
    PRIMARY KEY (project, namespace)
);

-- One row per parameter of each served template (and per key evaluated before its version was
-- recorded: `publish_time` NULL until it is). `stale_reason` is set once a `parameter.stale`
-- event was written for it, and cleared when it is no longer stale.
CREATE TABLE usage_parameters (
    project            text NOT NULL,
    namespace          text NOT NULL,
    parameter          text NOT NULL,
    publish_time       bigint,
    last_evaluate_time bigint,
    stale_reason       text,
    PRIMARY KEY (project, namespace, parameter)
);

-- Evaluations per parameter, hour bucket (ms of its start), source and served value (a digest).
CREATE TABLE usage_sources (
    project      text NOT NULL,
    namespace    text NOT NULL,
    parameter    text NOT NULL,
    hour         bigint NOT NULL,
    source       text NOT NULL,
    value_digest bigint NOT NULL,
    count        bigint NOT NULL,
    PRIMARY KEY (project, namespace, parameter, hour, source, value_digest)
);

CREATE INDEX usage_sources_by_hour ON usage_sources (hour);

-- Evaluations by the clients' app version and platform, per served version: `parameter` is ''
-- for answers that evaluate every key of the version (a fetch, an OpenFeature bulk evaluation),
-- which a report expands into the keys `usage_versions` lists; else the one flag evaluated.
CREATE TABLE usage_clients (
    project   text NOT NULL,
    namespace text NOT NULL,
    version   bigint NOT NULL,
    parameter text NOT NULL,
    hour      bigint NOT NULL,
    dimension text NOT NULL CHECK (dimension IN ('appVersion', 'platform')),
    value     text NOT NULL,
    count     bigint NOT NULL,
    PRIMARY KEY (project, namespace, version, parameter, hour, dimension, value)
);

CREATE INDEX usage_clients_by_hour ON usage_clients (hour);

-- The keys of each version counted in `usage_clients` (a JSON array).
CREATE TABLE usage_versions (
    project   text NOT NULL,
    namespace text NOT NULL,
    version   bigint NOT NULL,
    keys      bytea NOT NULL,
    PRIMARY KEY (project, namespace, version)
);

-- A project's stale days (30 without a row).
CREATE TABLE usage_settings (
    project    text PRIMARY KEY,
    stale_days bigint NOT NULL
);

-- Parameters marked permanent (kill switches): never stale.
CREATE TABLE usage_permanent (
    project   text NOT NULL,
    namespace text NOT NULL,
    parameter text NOT NULL,
    mark_time bigint NOT NULL,
    marked_by text NOT NULL,
    PRIMARY KEY (project, namespace, parameter)
);
