-- What each integration's last calls did (issue 20), for the integration-health dashboard
-- (issue 22): one row per integration, moved by every call its client makes
-- (ops_console/integrations/health.hpp). Errors are the client's own words, never a secret.
CREATE TABLE integration_health (
  key              text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_]*$'),
  last_success_at  timestamptz,
  last_failure_at  timestamptz,
  last_error       text,
  last_latency_ms  integer,
  calls            bigint NOT NULL DEFAULT 0,
  failures         bigint NOT NULL DEFAULT 0,
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- The JSON shape of a health row.
CREATE FUNCTION integration_health_json(h integration_health) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('key', h.key, 'lastSuccessAt', h.last_success_at, 'lastFailureAt', h.last_failure_at,
                           'lastError', h.last_error, 'lastLatencyMs', h.last_latency_ms, 'calls', h.calls,
                           'failures', h.failures, 'updatedAt', h.updated_at)
$$;
