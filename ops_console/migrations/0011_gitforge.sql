-- Source-control push intake, commit tracking and the agent instances it feeds (issue 18).

-- Agent instances: where a signed copy of every push goes, and who may read the commits back.
-- The signing secret is kept as given (the console signs with it) and never rendered; the bearer
-- token is kept only as its SHA-256 (hex), shown once when issued.
CREATE TABLE agent_instances (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name            text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
  url             text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  enabled         boolean NOT NULL DEFAULT true,
  signing_secret  text NOT NULL CHECK (length(signing_secret) >= 16),
  token_hash      text NOT NULL UNIQUE,
  token_issued_at timestamptz NOT NULL DEFAULT now(),
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- One row per push delivery received from the forge: the delivery id makes a redelivery a no-op.
-- `envelope` is what every agent instance gets (ops_console/gitforge/push.hpp), the forge's own
-- body inside it.
CREATE TABLE gitforge_deliveries (
  delivery_id   text PRIMARY KEY CHECK (length(delivery_id) BETWEEN 1 AND 200),
  forge         text NOT NULL CHECK (forge IN ('github', 'gitea')),
  repository    text NOT NULL,
  ref           text NOT NULL,
  pusher        text,
  commit_count  integer NOT NULL,
  envelope      jsonb NOT NULL,
  received_at   timestamptz NOT NULL DEFAULT now()
);

-- A commit is stored once per repository and branch it reaches, whichever push carried it first.
CREATE TABLE repo_commits (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  repository    text NOT NULL,
  branch        text NOT NULL,
  commit_id     text NOT NULL,
  message       text NOT NULL,
  author_name   text,
  author_email  text,
  committed_at  timestamptz,
  url           text,
  delivery_id   text NOT NULL REFERENCES gitforge_deliveries (delivery_id),
  received_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (repository, branch, commit_id)
);
-- The agents' read: newest first, optionally one repository (and branch), since a time.
CREATE INDEX repo_commits_newest ON repo_commits (received_at DESC, id DESC);
CREATE INDEX repo_commits_repository ON repo_commits (repository, branch, received_at DESC, id DESC);

-- The signed copies, one per push and agent instance, taken by the dispatcher with FOR UPDATE
-- SKIP LOCKED; `leased_until` hands a copy whose sender died to another after a while.
CREATE TABLE agent_deliveries (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_instance_id bigint NOT NULL REFERENCES agent_instances (id) ON DELETE CASCADE,
  delivery_id       text NOT NULL REFERENCES gitforge_deliveries (delivery_id),
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts          integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz NOT NULL DEFAULT now(),
  leased_until      timestamptz,
  last_status       integer,
  last_error        text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  finished_at       timestamptz,
  UNIQUE (agent_instance_id, delivery_id)
);
CREATE INDEX agent_deliveries_due ON agent_deliveries (next_attempt_at) WHERE status = 'pending';

-- An agent instance as every route shows it: never its secret or its token.
CREATE FUNCTION agent_instance_json(a agent_instances) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', a.id,
    'name', a.name,
    'url', a.url,
    'enabled', a.enabled,
    'token_issued_at', a.token_issued_at,
    'created_at', a.created_at,
    'updated_at', a.updated_at,
    'deliveries', (
      SELECT json_build_object(
        'delivered', count(*) FILTER (WHERE d.status = 'delivered'),
        'pending', count(*) FILTER (WHERE d.status = 'pending'),
        'failed', count(*) FILTER (WHERE d.status = 'failed'),
        'last_delivered_at', max(d.finished_at) FILTER (WHERE d.status = 'delivered'),
        'last_error', (SELECT e.last_error FROM agent_deliveries e
                       WHERE e.agent_instance_id = a.id AND e.last_error IS NOT NULL
                       ORDER BY e.id DESC LIMIT 1))
      FROM agent_deliveries d WHERE d.agent_instance_id = a.id))
$$;

-- A stored commit as the agents read it.
CREATE FUNCTION repo_commit_json(c repo_commits) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'repository', c.repository,
    'branch', c.branch,
    'commit_id', c.commit_id,
    'message', c.message,
    'author_name', c.author_name,
    'author_email', c.author_email,
    'timestamp', c.committed_at,
    'url', c.url,
    'delivery_id', c.delivery_id,
    'received_at', c.received_at)
$$;

INSERT INTO notify_event_keys (key, description, sort_order)
VALUES ('gitforge_push', 'Commits pushed to a repository of the source-control forge', 100)
ON CONFLICT (key) DO NOTHING;
