-- Webhooks (docs/webhooks.md). An endpoint wants some event types of one project. An event is
-- written to the outbox in the same transaction as the change it reports, with one delivery per
-- endpoint that wants it; a worker claims a due delivery by taking its lease, sends it, and
-- records the attempt. `events` is the wanted types between spaces (' template.publish
-- canary.start '), so that one `instr` finds an endpoint that wants a type.
CREATE TABLE webhook_endpoints (
    id                          TEXT PRIMARY KEY,
    project                     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    url                         TEXT NOT NULL,
    description                 TEXT NOT NULL,
    events                      TEXT NOT NULL,
    secret                      TEXT NOT NULL,
    previous_secret             TEXT,
    previous_secret_expire_time INTEGER,
    create_time                 INTEGER NOT NULL,
    update_time                 INTEGER NOT NULL
) STRICT;

CREATE INDEX webhook_endpoints_by_project ON webhook_endpoints (project);

-- `details` is the version the event reports (Firebase's update fields, as stored), `data` what
-- else its writer adds (a JSON object), `diff_from` the version its diff starts from; `body` is
-- the payload as first sent, with its diff, so that every later attempt sends the same bytes.
CREATE TABLE webhook_events (
    id             TEXT PRIMARY KEY,
    project        TEXT NOT NULL,
    namespace      TEXT,
    type           TEXT NOT NULL,
    time           INTEGER NOT NULL,
    diff_from      INTEGER,
    details        BLOB,
    data           BLOB,
    body           BLOB
) STRICT;

CREATE INDEX webhook_events_by_time ON webhook_events (time);

-- A delivery is due when `next_attempt_time` passed and nobody holds its lease
-- (`lease_expire_time` passed); retries stop 24 hours (configurable) after `window_start_time`.
CREATE TABLE webhook_deliveries (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id          TEXT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    endpoint_id       TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    state             TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempt_count     INTEGER NOT NULL DEFAULT 0,
    next_attempt_time INTEGER NOT NULL,
    window_start_time INTEGER NOT NULL,
    lease_owner       TEXT,
    lease_expire_time INTEGER NOT NULL DEFAULT 0,
    create_time       INTEGER NOT NULL
) STRICT;

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_time) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);

-- The delivery log: one row per attempt.
CREATE TABLE webhook_attempts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    time        INTEGER NOT NULL,
    status      INTEGER,
    latency_ms  INTEGER NOT NULL,
    response    TEXT NOT NULL,
    error       TEXT
) STRICT;

CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id);
