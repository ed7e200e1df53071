-- Change control (docs/change-control.md): each template's approval policy, and change requests
-- (proposals waiting for approval, and publishes scheduled for a time). A request's details are
-- one JSON record; what the server filters on (status, schedule time) and what a publish that
-- applies it writes in its own transaction (status, applied version, revision) are columns.
CREATE TABLE change_policies (
    project     text   NOT NULL,
    namespace   text   NOT NULL,
    record      bytea  NOT NULL,
    update_time bigint NOT NULL,
    PRIMARY KEY (project, namespace)
);

CREATE TABLE change_requests (
    id              bigserial PRIMARY KEY,
    project         text   NOT NULL,
    namespace       text   NOT NULL,
    status          text   NOT NULL,
    schedule_time   bigint,
    revision        bigint NOT NULL,
    applied_version bigint,
    record          bytea  NOT NULL,
    create_time     bigint NOT NULL,
    update_time     bigint NOT NULL
);

CREATE INDEX change_requests_by_template ON change_requests (project, namespace, id);
CREATE INDEX change_requests_by_schedule ON change_requests (status, schedule_time);
