-- PostgreSQL's 0009 records when each node's listener was last heard from, in the table of
-- its 0003, which SQLite does not have (one file is one machine: no listeners). The number is
-- kept so that both engines' migrations count alike.
SELECT 1;
