-- Endpoint security (issue 20; SentinelOne, vendors.md "Endpoint security: SentinelOne"): the
-- sites with their licences and agent counts, copied by each sync, and the mapping of a site to
-- a PSA company, which an administrator keeps. Site ids are SentinelOne's (decimal strings).
CREATE TABLE endpointsec_sites (
  id                  text PRIMARY KEY,
  name                text NOT NULL,
  account_id          text,
  account_name        text,
  state               text,
  site_type           text,
  total_licenses      integer,
  active_licenses     integer,
  unlimited_licenses  boolean,
  agents              integer NOT NULL DEFAULT 0,
  active_agents       integer NOT NULL DEFAULT 0,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at          timestamptz           -- the last sync no longer saw it
);

CREATE TABLE endpointsec_company_mappings (
  site_id     text PRIMARY KEY REFERENCES endpointsec_sites (id) ON DELETE CASCADE,
  company_id  bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  mapped_by   bigint REFERENCES users (id) ON DELETE SET NULL,
  mapped_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX endpointsec_company_mappings_company ON endpointsec_company_mappings (company_id);

-- A site with its mapping and its coverage: the company's active configuration items in the PSA
-- copy against the site's agents (coverage = agents / items, null without items).
CREATE FUNCTION endpointsec_site_json(s endpointsec_sites) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'siteId', s.id, 'siteName', s.name, 'accountName', s.account_name, 'state', s.state,
    'companyId', m.company_id, 'companyName', c.company_name,
    'licenses', json_build_object('total', s.total_licenses, 'active', s.active_licenses,
                                  'unlimited', coalesce(s.unlimited_licenses, false)),
    'agents', json_build_object('total', s.agents, 'active', s.active_agents),
    'configurationItems', ci.items,
    'coverage', CASE WHEN ci.items > 0 THEN round(s.agents::numeric / ci.items, 2) END,
    'syncedAt', s.synced_at)
  FROM (SELECT 1) one
  LEFT JOIN endpointsec_company_mappings m ON m.site_id = s.id
  LEFT JOIN companies c ON c.id = m.company_id
  LEFT JOIN LATERAL (
    SELECT CASE WHEN m.company_id IS NULL THEN NULL ELSE count(*) END AS items
    FROM configuration_items i
    WHERE i.company_id = m.company_id AND i.deleted_at IS NULL AND i.is_active IS NOT FALSE) ci ON true
$$;
