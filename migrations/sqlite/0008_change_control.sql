-- Change control (docs/change-control.md): each template's approval policy, and change requests
-- (proposals waiting for approval, and publishes scheduled for a time). A request's details are
-- one JSON record; what the server filters on (status, schedule time) and what a publish that
-- applies it writes in its own transaction (status, applied version, revision) are columns.
CREATE TABLE change_policies (
    project     TEXT NOT NULL,
    namespace   TEXT NOT NULL,
    record      BLOB NOT NULL,
    update_time INTEGER NOT NULL,
    PRIMARY KEY (project, namespace)
) STRICT;

CREATE TABLE change_requests (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    project         TEXT NOT NULL,
    namespace       TEXT NOT NULL,
    status          TEXT NOT NULL,
    schedule_time   INTEGER,
    revision        INTEGER NOT NULL,
    applied_version INTEGER,
    record          BLOB NOT NULL,
    create_time     INTEGER NOT NULL,
    update_time     INTEGER NOT NULL
) STRICT;

CREATE INDEX change_requests_by_template ON change_requests (project, namespace, id);
CREATE INDEX change_requests_by_schedule ON change_requests (status, schedule_time);
