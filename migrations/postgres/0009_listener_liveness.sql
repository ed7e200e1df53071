-- When each listener was last heard from (docs/postgresql.md, "Acknowledgements"): set by the
-- database's clock at connect, at each heartbeat (every 2 s) and with each acknowledgement, so
-- that the nodes' clocks do not matter. A writer waits only for listeners heard from within
-- 6 s: a node whose host vanished leaves a backend PostgreSQL keeps for minutes, and writes
-- must not wait for it meanwhile.
ALTER TABLE listener_acks ADD COLUMN seen_at timestamptz NOT NULL DEFAULT clock_timestamp();
