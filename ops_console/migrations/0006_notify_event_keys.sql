-- Event keys that notifications are sent for (issue 7). Keys are compared without regard to case
-- and stored lowercased; subscriptions name them.
CREATE TABLE notify_event_keys (
  key          text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_]*$' AND length(key) <= 128),
  description  text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
  sort_order   integer NOT NULL DEFAULT 0,
  is_active    boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION notify_event_key_json(k notify_event_keys) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'key', k.key,
    'description', k.description,
    'sort_order', k.sort_order,
    'is_active', k.is_active,
    'created_at', k.created_at,
    'updated_at', k.updated_at)
$$;
