-- Who may use the console (issue 6). The spec fixes the camelCase "updatedAt" column of users,
-- written by the profile, theme, timezone and first-login setup routes.
CREATE TABLE users (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email          text NOT NULL CHECK (email = lower(email) AND email <> ''),
  name           text NOT NULL DEFAULT '',
  password_hash  text NOT NULL,                    -- argon2id, libsodium's encoded form
  is_admin       boolean NOT NULL DEFAULT false,
  theme          text CHECK (theme IN ('light', 'dark', 'system')),  -- NULL: the default
  timezone       text CHECK (length(timezone) <= 64),
  created_at     timestamptz NOT NULL DEFAULT now(),
  "updatedAt"    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (email);

-- Permission pairs; administrators hold every permission without rows.
CREATE TABLE user_permissions (
  user_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  resource  text NOT NULL CHECK (resource ~ '^[a-z][a-z_]*$'),
  action    text NOT NULL CHECK (action ~ '^[a-z][a-z_]*$'),
  PRIMARY KEY (user_id, resource, action)
);

-- A signed-in browser. The cookie holds a random token; only its SHA-256 is stored.
CREATE TABLE sessions (
  token_hash    text PRIMARY KEY,
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  address       text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

-- Failed sign-ins, per account and per client address, for slowing and refusing.
CREATE TABLE login_failures (
  email      text NOT NULL,
  address    text NOT NULL,
  failed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_email ON login_failures (email, failed_at);
CREATE INDEX login_failures_address ON login_failures (address, failed_at);
