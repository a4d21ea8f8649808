-- Database users created by the /dbusers console for programs that read this database
-- directly (the spec: "migration 0005 creates the db_api_users table"). The password is never
-- stored. Revoking marks the row inactive (with time and actor) and drops the role.
CREATE TABLE db_api_users (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  username         text NOT NULL UNIQUE CHECK (username ~ '^[a-z0-9_]{3,31}$'),
  role_name        text NOT NULL UNIQUE CHECK (role_name = 'svc_' || username),
  permission_level text NOT NULL CHECK (permission_level IN ('read_only', 'modify', 'full')),
  description      text,
  is_active        boolean NOT NULL DEFAULT true,
  created_at       timestamptz NOT NULL DEFAULT now(),
  created_by       text NOT NULL DEFAULT '',
  revoked_at       timestamptz,
  revoked_by       text,
  CONSTRAINT db_api_users_revocation CHECK (is_active = (revoked_at IS NULL))
);
