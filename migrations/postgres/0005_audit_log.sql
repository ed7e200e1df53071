-- The audit log (docs/access.md): one row per change made through the management API, and per
-- refusal for a missing role. Rows are only ever appended; retention removes the oldest.
CREATE TABLE audit_log (
    id             bigserial PRIMARY KEY,
    time           bigint NOT NULL,
    actor_id       text NOT NULL,
    actor_name     text NOT NULL,
    origin         text NOT NULL,
    request_id     text NOT NULL,
    client_address text NOT NULL,
    action         text NOT NULL,
    project        text,
    namespace      text,
    target         text,
    version_number bigint,
    diff           bytea,
    outcome        text NOT NULL
);

CREATE INDEX audit_log_by_time ON audit_log (time);
