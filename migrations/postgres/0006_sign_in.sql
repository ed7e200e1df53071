-- Sign-in with OpenID Connect (docs/access.md): console sessions join the access records (every
-- worker keeps them in memory, so a signed-in call never queries the store), and each sign-in
-- under way keeps its state, nonce and PKCE verifier here until the provider sends the person
-- back; taking one deletes it, so a state is used once on every worker and node.
ALTER TABLE access_records DROP CONSTRAINT access_records_kind_check;
ALTER TABLE access_records ADD CONSTRAINT access_records_kind_check
    CHECK (kind IN ('principal', 'membership', 'token', 'session'));

CREATE TABLE sign_in_attempts (
    state_hash  text   PRIMARY KEY,
    record      bytea  NOT NULL,
    expire_time bigint NOT NULL
);
