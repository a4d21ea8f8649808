-- The /dbusers console's own state, in a schema of its own: the roles it creates get rights in
-- schema public only (mail_triage/dbusers/roles.hpp), so none of them can read or forge a
-- console session, or rewrite the audit.
CREATE SCHEMA dbusers_console;

-- A signed-in admin. The cookie holds a random token; only its SHA-256 is stored. The CSRF
-- token of the session's forms is derived from the token, so it is not stored either.
CREATE TABLE dbusers_console.sessions (
  token_hash    text PRIMARY KEY,
  actor         text NOT NULL,                 -- "admin key <fingerprint>"
  address       text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL           -- absolute end; idle end is last_seen_at + idle
);
CREATE INDEX sessions_expiry ON dbusers_console.sessions (expires_at);

-- Failed sign-ins per client address, for slowing and then refusing repeated attempts.
CREATE TABLE dbusers_console.login_failures (
  address    text NOT NULL,
  failed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_address ON dbusers_console.login_failures (address, failed_at);

-- Who did what and when: sign-ins (also failed ones), sign-outs, creates and revokes.
CREATE TABLE dbusers_console.audit (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at                timestamptz NOT NULL DEFAULT now(),
  actor             text NOT NULL,
  action            text NOT NULL CHECK (action IN ('login', 'login_failed', 'logout', 'create', 'revoke')),
  username          text,
  permission_level  text,
  address           text
);
