-- Remote management: Tactical RMM (issue 33, item 2). The copy of its clients, sites and agents,
-- the scripts a user may run, the mapping of RMM clients to PSA companies, and the execution
-- queue: rmm_executions (0020) grows the request (agent, script, arguments, timeout, who asked),
-- the lease of the worker running it, and the outcome (exit code, output).

CREATE TABLE rmm_clients (
  id          bigint PRIMARY KEY,          -- Tactical RMM's client pk
  name        text NOT NULL,
  synced_at   timestamptz NOT NULL DEFAULT now(),
  deleted_at  timestamptz
);

CREATE TABLE rmm_sites (
  id          bigint PRIMARY KEY,          -- Tactical RMM's site pk
  client_id   bigint NOT NULL,
  name        text NOT NULL,
  synced_at   timestamptz NOT NULL DEFAULT now(),
  deleted_at  timestamptz
);

CREATE TABLE rmm_agents (
  agent_id     text PRIMARY KEY,           -- Tactical RMM's agent_id (the NATS subject)
  hostname     text NOT NULL,
  client_name  text,
  site_name    text,
  plat         text,
  status       text,                       -- online, offline, overdue
  last_seen    timestamptz,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at   timestamptz
);

CREATE TABLE rmm_scripts (
  id                bigint PRIMARY KEY,
  name              text NOT NULL,
  shell             text,
  category          text,
  default_timeout   integer,
  synced_at         timestamptz NOT NULL DEFAULT now(),
  deleted_at        timestamptz
);

CREATE TABLE rmm_company_mappings (
  client_id   bigint PRIMARY KEY REFERENCES rmm_clients (id) ON DELETE CASCADE,
  company_id  bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  mapped_by   bigint REFERENCES users (id) ON DELETE SET NULL,
  mapped_at   timestamptz NOT NULL DEFAULT now()
);

-- An execution: queued by POST /api/rmm/executions, claimed by one worker (FOR UPDATE SKIP
-- LOCKED, status running, leased_until), finished once. A running row whose lease ran out was
-- held by a worker that died: the run-script call may have reached the agent, so it is failed
-- ('interrupted'), never sent again (ops_console/README.md, "Remote management").
ALTER TABLE rmm_executions
  ADD COLUMN agent_id        text,
  ADD COLUMN script_id       bigint,
  ADD COLUMN args            jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN timeout_seconds integer NOT NULL DEFAULT 90,
  ADD COLUMN requested_by    bigint REFERENCES users (id) ON DELETE SET NULL,
  ADD COLUMN attempts        integer NOT NULL DEFAULT 0,
  ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN leased_until    timestamptz,
  ADD COLUMN leased_by       text,
  ADD COLUMN exit_code       integer,
  ADD COLUMN output          text,
  ADD COLUMN interrupted     boolean NOT NULL DEFAULT false;
CREATE INDEX rmm_executions_queued ON rmm_executions (next_attempt_at, id) WHERE status = 'queued';
CREATE INDEX rmm_executions_created ON rmm_executions (created_at DESC, id DESC);

CREATE FUNCTION rmm_execution_json(e rmm_executions) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', e.id, 'agentId', e.agent_id, 'device', e.device, 'scriptId', e.script_id, 'script', e.script,
    'args', e.args, 'timeoutSeconds', e.timeout_seconds, 'status', e.status, 'interrupted', e.interrupted,
    'exitCode', e.exit_code, 'output', e.output, 'error', e.error, 'attempts', e.attempts,
    'requestedBy', (SELECT json_build_object('id', u.id, 'email', u.email) FROM users u WHERE u.id = e.requested_by),
    'createdAt', e.created_at, 'startedAt', e.started_at, 'finishedAt', e.finished_at)
$$;

-- An RMM client's PSA company: an administrator's mapping first, else the one company whose
-- normalised name (0012) is the client's.
ALTER TABLE rmm_clients ADD COLUMN normalised_name text GENERATED ALWAYS AS (distributor_normalised_name(name)) STORED;

CREATE FUNCTION rmm_client_json(c rmm_clients) RETURNS json LANGUAGE sql STABLE AS $$
  WITH matched AS (
    SELECT m.company_id, 'mapping' AS how FROM rmm_company_mappings m WHERE m.client_id = c.id
    UNION ALL
    SELECT (array_agg(p.id))[1], 'name' FROM companies p
    WHERE p.normalised_name = c.normalised_name AND p.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM rmm_company_mappings m WHERE m.client_id = c.id)
    HAVING count(*) = 1)
  SELECT json_build_object(
    'id', c.id, 'name', c.name,
    'companyId', (SELECT company_id FROM matched), 'matchedBy', (SELECT how FROM matched),
    'companyName', (SELECT p.company_name FROM companies p WHERE p.id = (SELECT company_id FROM matched)),
    'sites', (SELECT coalesce(json_agg(json_build_object('id', s.id, 'name', s.name) ORDER BY lower(s.name), s.id),
                              '[]'::json) FROM rmm_sites s WHERE s.client_id = c.id AND s.deleted_at IS NULL),
    'agents', (SELECT count(*) FROM rmm_agents a WHERE a.client_name = c.name AND a.deleted_at IS NULL))
$$;
