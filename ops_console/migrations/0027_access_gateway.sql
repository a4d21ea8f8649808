-- The access gateway (issue 33; Cloudflare Zero Trust Access, sandbox/cloudflare_access_fake.hpp):
-- the applications it protects and their policies (who may reach them), copied by each sync.
-- Ids are Cloudflare's (uuids, kept as text).
CREATE TABLE access_gateway_apps (
  id                text PRIMARY KEY,
  name              text NOT NULL,
  domain            text,
  app_type          text,
  session_duration  text,
  vendor_updated_at timestamptz,
  synced_at         timestamptz NOT NULL DEFAULT now(),
  deleted_at        timestamptz            -- the last sync no longer saw it
);

CREATE TABLE access_gateway_policies (
  app_id      text NOT NULL REFERENCES access_gateway_apps (id) ON DELETE CASCADE,
  id          text NOT NULL,
  name        text,
  decision    text NOT NULL,               -- allow, deny, non_identity, bypass
  precedence  integer,
  include     jsonb NOT NULL DEFAULT '[]', -- Cloudflare's rules as sent: [{"email": {"email": ...}}, ...]
  exclude     jsonb NOT NULL DEFAULT '[]',
  require     jsonb NOT NULL DEFAULT '[]',
  synced_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, id)
);

-- An application with its policies, in precedence order.
CREATE FUNCTION access_gateway_app_json(a access_gateway_apps) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', a.id, 'name', a.name, 'domain', a.domain, 'type', a.app_type, 'sessionDuration', a.session_duration,
    'updatedAt', a.vendor_updated_at, 'syncedAt', a.synced_at,
    'policies', (SELECT coalesce(json_agg(json_build_object(
                   'id', p.id, 'name', p.name, 'decision', p.decision, 'precedence', p.precedence,
                   'include', p.include, 'exclude', p.exclude, 'require', p.require)
                   ORDER BY p.precedence NULLS LAST, p.id), '[]'::json)
                 FROM access_gateway_policies p WHERE p.app_id = a.id))
$$;
