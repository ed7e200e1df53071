-- The audit log (docs/access.md): one row per change made through the management API, and per
-- refusal for a missing role. Rows are only ever appended; retention removes the oldest.
CREATE TABLE audit_log (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    time           INTEGER NOT NULL,
    actor_id       TEXT NOT NULL,
    actor_name     TEXT NOT NULL,
    origin         TEXT NOT NULL,
    request_id     TEXT NOT NULL,
    client_address TEXT NOT NULL,
    action         TEXT NOT NULL,
    project        TEXT,
    namespace      TEXT,
    target         TEXT,
    version_number INTEGER,
    diff           BLOB,
    outcome        TEXT NOT NULL
) STRICT;

CREATE INDEX audit_log_by_time ON audit_log (time);
