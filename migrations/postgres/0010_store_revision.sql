-- SQLite's 0010 adds the store_revision row PostgreSQL has had since its 0001. The number is
-- kept so that both engines' migrations count alike.
SELECT 1;
