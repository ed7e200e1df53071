-- The change token (docs/consistency.md), kept as PostgreSQL's 0001 keeps it: one row that every
-- write of what the workers keep in memory increments in its own transaction. Before, it was
-- PRAGMA data_version, which any commit moved (audit rows, webhook attempts, sessions kept
-- alive), and each move made every worker read the whole control plane again.
-- Only a table is added: a process still running the code before this one goes on serving. Its
-- writes do not move the row, so until it stops, the newer processes learn of them at their next
-- reload rather than at once.
CREATE TABLE store_revision (
    singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
    revision  INTEGER NOT NULL
) STRICT;

INSERT INTO store_revision (singleton, revision) VALUES (1, 0);
