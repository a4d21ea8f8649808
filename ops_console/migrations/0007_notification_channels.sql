-- Notification channels, the per-user subscription matrix and a record of every delivery (issue 7).

-- A channel is global (owner_user_id NULL) or a user's personal one. Its configuration depends on
-- its type and is validated by the service (ops_console/notify/channels.cpp); secrets in it
-- (a bot token, a signing secret) are never rendered by notification_channel_json().
CREATE TABLE notification_channels (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  channel_type   text NOT NULL CHECK (channel_type IN ('chat_webhook', 'messenger_bot', 'push_topic', 'webhook')),
  owner_user_id  bigint REFERENCES users (id) ON DELETE CASCADE,
  name           text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
  enabled        boolean NOT NULL DEFAULT true,
  config         jsonb NOT NULL CHECK (jsonb_typeof(config) = 'object'),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- One personal channel per user per type.
CREATE UNIQUE INDEX notification_channels_personal
  ON notification_channels (owner_user_id, channel_type) WHERE owner_user_id IS NOT NULL;

-- Opt-out: a missing row means enabled.
CREATE TABLE notification_subscriptions (
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  event_key     text NOT NULL CHECK (event_key <> '' AND length(event_key) <= 128),
  channel_type  text NOT NULL CHECK (channel_type IN ('chat_webhook', 'messenger_bot', 'push_topic', 'webhook')),
  enabled       boolean NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, event_key, channel_type)
);

-- One row per message sent to one channel (event_key NULL for a test message), with the outcome.
CREATE TABLE notification_deliveries (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  channel_id    bigint REFERENCES notification_channels (id) ON DELETE SET NULL,
  channel_type  text NOT NULL,
  event_key     text,
  delivered     boolean NOT NULL,
  attempts      integer NOT NULL,
  http_status   integer,
  reason        text,               -- why it was not delivered
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_deliveries_channel ON notification_deliveries (channel_id, created_at DESC);

CREATE FUNCTION notification_channel_json(c notification_channels, owner_email text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', c.id,
    'channel_type', c.channel_type,
    'owner_user_id', c.owner_user_id,
    'owner_email', owner_email,
    'name', c.name,
    'enabled', c.enabled,
    'config', c.config - '{bot_token,secret}'::text[],
    'secrets_set', (SELECT coalesce(json_agg(k ORDER BY k), '[]'::json)
                    FROM jsonb_object_keys(c.config) k WHERE k IN ('bot_token', 'secret')),
    'created_at', c.created_at,
    'updated_at', c.updated_at)
$$;
