-- Every worker has exactly 24 hourly buckets (spec: "each worker has exactly 24 hourly buckets,
-- zero-filled"), a worker that is not configured too (issue 31): {name, configured: false,
-- activity24h} with every bucket 0. It still shows no status, in-flight count or failures: nobody
-- measured them. Replaces worker_json() of migration 0020; worker_status_json() calls it.
CREATE OR REPLACE FUNCTION worker_json(name text, configured boolean, in_flight bigint, runs jsonb, at timestamptz)
RETURNS json LANGUAGE sql STABLE AS $$
  WITH finished AS (
    SELECT (r->>'finishedAt')::timestamptz AS finished_at, (r->>'succeeded')::boolean AS succeeded
    FROM jsonb_array_elements(runs) r),
  hours AS (SELECT date_trunc('hour', at AT TIME ZONE 'UTC') - make_interval(hours => n) AS h
            FROM generate_series(23, 0, -1) n),
  buckets AS (SELECT json_agg(json_build_object(
                'hour', h.h AT TIME ZONE 'UTC',
                'success', (SELECT count(*) FROM finished f WHERE f.succeeded
                            AND f.finished_at >= h.h AT TIME ZONE 'UTC'
                            AND f.finished_at < (h.h + interval '1 hour') AT TIME ZONE 'UTC'),
                'failure', (SELECT count(*) FROM finished f WHERE NOT f.succeeded
                            AND f.finished_at >= h.h AT TIME ZONE 'UTC'
                            AND f.finished_at < (h.h + interval '1 hour') AT TIME ZONE 'UTC'))
              ORDER BY h.h) AS activity FROM hours h),
  failures AS (SELECT count(*) AS n FROM finished WHERE NOT succeeded AND finished_at > at - interval '1 hour')
  SELECT CASE WHEN NOT configured
    THEN json_build_object('name', name, 'configured', false, 'activity24h', (SELECT activity FROM buckets))
    ELSE json_build_object(
      'name', name, 'configured', true, 'inFlight', in_flight, 'failuresLastHour', (SELECT n FROM failures),
      'status', worker_state((SELECT n FROM failures), in_flight), 'activity24h', (SELECT activity FROM buckets)) END
$$;
