-- PostgreSQL's 0003 records what each node's listener applied. One SQLite file is one machine,
-- whose workers share change counters instead (docs/consistency.md): nothing to store. The
-- number is kept so that both engines' migrations count alike.
SELECT 1;
