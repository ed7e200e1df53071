-- Webhooks (docs/webhooks.md). An endpoint wants some event types of one project. An event is
-- written to the outbox in the same transaction as the change it reports, with one delivery per
-- endpoint that wants it; a worker claims a due delivery by taking its lease, sends it, and
-- records the attempt. `events` is the wanted types between spaces (' template.publish
-- canary.start '), so that one `position` finds an endpoint that wants a type.
CREATE TABLE webhook_endpoints (
    id                          text PRIMARY KEY,
    project                     text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    url                         text NOT NULL,
    description                 text NOT NULL,
    events                      text NOT NULL,
    secret                      text NOT NULL,
    previous_secret             text,
    previous_secret_expire_time bigint,
    create_time                 bigint NOT NULL,
    update_time                 bigint NOT NULL
);

CREATE INDEX webhook_endpoints_by_project ON webhook_endpoints (project);

-- `details` is the version the event reports (Firebase's update fields, as stored), `data` what
-- else its writer adds (a JSON object), `diff_from` the version its diff starts from; `body` is
-- the payload as first sent, with its diff, so that every later attempt sends the same bytes.
CREATE TABLE webhook_events (
    id             text PRIMARY KEY,
    project        text NOT NULL,
    namespace      text,
    type           text NOT NULL,
    time           bigint NOT NULL,
    diff_from      bigint,
    details        bytea,
    data           bytea,
    body           bytea
);

CREATE INDEX webhook_events_by_time ON webhook_events (time);

-- A delivery is due when `next_attempt_time` passed and nobody holds its lease
-- (`lease_expire_time` passed); retries stop 24 hours (configurable) after `window_start_time`.
CREATE TABLE webhook_deliveries (
    id                bigserial PRIMARY KEY,
    event_id          text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    endpoint_id       text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    state             text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempt_count     bigint NOT NULL DEFAULT 0,
    next_attempt_time bigint NOT NULL,
    window_start_time bigint NOT NULL,
    lease_owner       text,
    lease_expire_time bigint NOT NULL DEFAULT 0,
    create_time       bigint NOT NULL
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_time) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);

-- The delivery log: one row per attempt.
CREATE TABLE webhook_attempts (
    id          bigserial PRIMARY KEY,
    delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    time        bigint NOT NULL,
    status      bigint,
    latency_ms  bigint NOT NULL,
    response    text NOT NULL,
    error       text
);

CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id);
