-- The secret fields of a channel's configuration, named once (issue 16). The renderer below hides
-- them and lists those that are set under secrets_set; the service keeps a stored secret that an
-- update omits by reading that list (ops_console/notify/channels.hpp). A new secret field is
-- added here, in a migration that replaces this function.
CREATE FUNCTION notification_secret_fields() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT '{bot_token,secret}'::text[] $$;

-- The JSON shape of a notification channel: the one renderer every route answers with.
CREATE OR REPLACE FUNCTION notification_channel_json(c notification_channels, owner_email text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', c.id,
    'channel_type', c.channel_type,
    'owner_user_id', c.owner_user_id,
    'owner_email', owner_email,
    'name', c.name,
    'enabled', c.enabled,
    'config', c.config - notification_secret_fields(),
    'secrets_set', (SELECT coalesce(json_agg(k ORDER BY k), '[]'::json)
                    FROM jsonb_object_keys(c.config) k WHERE k = ANY (notification_secret_fields())),
    'created_at', c.created_at,
    'updated_at', c.updated_at)
$$;
