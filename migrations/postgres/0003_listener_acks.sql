-- What each node's listener has applied (docs/scaling.md, "One truth across nodes"): after a
-- write commits, its writer waits until every connected listener (pg_stat_activity,
-- application_name 'remote-config-listener …') has acknowledged a store_revision at least as
-- new, so that no node answers with an older version once the write is acknowledged.
CREATE TABLE listener_acks (
    pid      integer PRIMARY KEY,   -- the listener's backend (pg_backend_pid())
    revision bigint  NOT NULL
);
