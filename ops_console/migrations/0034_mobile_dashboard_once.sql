-- The mobile dashboard computed the overview once per use of its CTE, ten times (issue 36): a CTE
-- referenced once is inlined by PostgreSQL 12 and later, so each `o.j->...` ran
-- dashboard_overview_json() again (150 ms instead of 15 at 1M tickets). MATERIALIZED computes each
-- part once; nothing else changes.
CREATE OR REPLACE FUNCTION mobile_dashboard_json(tz text, at timestamptz, disabled text[]) RETURNS json
LANGUAGE sql STABLE SET jit = off AS $$
  WITH o AS MATERIALIZED (SELECT dashboard_overview_json(tz, at)::jsonb AS j),
  b AS MATERIALIZED (SELECT backup_success_json(at)::jsonb AS j),
  w AS (SELECT jsonb_array_elements(worker_status_json(at)::jsonb) - 'activity24h' AS j),
  -- each kind in its own order (pos): the most overdue first, the latest failed backup first
  attention AS (
    SELECT 1 AS rank, row_number() OVER (ORDER BY x.due_date_time, x.id) AS pos,
           jsonb_build_object('kind', 'slaBreach', 'ticketId', x.id, 'ticketNumber', x.ticket_number, 'title', x.title,
                              'companyName', c.company_name, 'dueDateTime', x.due_date_time) AS j
    FROM (SELECT * FROM counted_tickets t WHERE t.status <> 5 AND t.due_date_time < at
          ORDER BY t.due_date_time, t.id LIMIT 10) x LEFT JOIN companies c ON c.id = x.company_id
    UNION ALL
    SELECT 2, row_number() OVER (ORDER BY x.finished_at DESC, x.id DESC),
           jsonb_build_object('kind', 'backupFailed', 'id', x.id, 'device', x.device, 'jobName', x.job_name,
                              'finishedAt', x.finished_at, 'error', x.error)
    FROM (SELECT * FROM backup_results WHERE status = 'failed' AND finished_at > at - interval '24 hours'
            AND finished_at <= at ORDER BY finished_at DESC, id DESC LIMIT 10) x
    UNION ALL
    SELECT 3, row_number() OVER (ORDER BY e.started_at, e.id),
           jsonb_build_object('kind', 'stalledWorkflow', 'executionId', e.id, 'pipelineId', e.pipeline_id,
                              'ticketId', e.ticket_id, 'startedAt', e.started_at)
    FROM pipeline_executions e WHERE e.status = 'running' AND e.started_at < at - interval '5 minutes'
    UNION ALL
    SELECT 4, row_number() OVER (ORDER BY i->>'key'),
           jsonb_build_object('kind', 'integrationFailing', 'key', i->'key', 'lastError', i->'lastError',
                              'lastFailureAt', i->'lastFailureAt')
    FROM jsonb_array_elements(integration_board_json(disabled)::jsonb) i WHERE i->>'state' = 'failing'
    UNION ALL
    SELECT 5, row_number() OVER (ORDER BY w.j->>'name'),
           jsonb_build_object('kind', 'worker', 'name', w.j->'name', 'status', w.j->'status',
                              'failuresLastHour', w.j->'failuresLastHour', 'inFlight', w.j->'inFlight')
    FROM w WHERE w.j->>'status' IN ('down', 'warn'))
  SELECT json_build_object(
    'date', o.j->'date', 'timezone', tz, 'at', at,
    'kpis', jsonb_build_array(
      jsonb_build_object('key', 'openTickets', 'value', o.j->'openTotal'->'today', 'delta', o.j->'openTotal'->'delta',
                         'tone', 'normal'),
      jsonb_build_object('key', 'slaBreaches', 'value', o.j->'slaBreaches'->'today',
                         'delta', o.j->'slaBreaches'->'delta',
                         'tone', CASE WHEN (o.j->'slaBreaches'->>'today')::bigint > 0 THEN 'attention' ELSE 'normal' END),
      jsonb_build_object('key', 'openedToday', 'value', o.j->'opened'->'today', 'delta', o.j->'opened'->'delta',
                         'tone', 'normal'),
      jsonb_build_object('key', 'resolvedToday', 'value', o.j->'resolved'->'today', 'delta', o.j->'resolved'->'delta',
                         'tone', 'normal'),
      jsonb_build_object('key', 'backupSuccess', 'value', b.j->'percent',
                         'tone', CASE WHEN b.j->>'status' IN ('warn', 'down') THEN 'attention' ELSE 'normal' END) || b.j),
    'needsAttention', (SELECT coalesce(jsonb_agg(a.j ORDER BY a.rank, a.pos), '[]') FROM attention a),
    'workers', (SELECT coalesce(jsonb_agg(w.j), '[]') FROM w))
  FROM o, b
$$;

-- The kiosk wall wrote out every ticket of the companies it shows before counting them (its CTE `t`
-- is referenced five times, so PostgreSQL materialised it: 2.6 s at 1M tickets, issue 36). NOT
-- MATERIALIZED lets each count and the overdue list read their own index (the open tickets', the
-- created and completed dates').
CREATE OR REPLACE FUNCTION kiosk_wall_json(tz text, at timestamptz) RETURNS json LANGUAGE sql STABLE SET jit = off AS $$
  WITH shown AS MATERIALIZED (SELECT coalesce(array_agg(id), '{}') AS ids FROM display_company_ids('kiosk') id),
  t AS NOT MATERIALIZED (
    SELECT t.* FROM tickets t WHERE t.deleted_at IS NULL AND t.company_id = ANY ((SELECT ids FROM shown)::bigint[])),
  day AS MATERIALIZED (SELECT ((at AT TIME ZONE tz)::date)::timestamp AT TIME ZONE tz AS starts),
  overdue AS (
    SELECT t.id, t.ticket_number, t.title, t.priority, t.due_date_time, c.company_name FROM t
    LEFT JOIN companies c ON c.id = t.company_id
    WHERE t.status <> 5 AND t.create_date < at AND t.due_date_time < at
    ORDER BY t.due_date_time, t.id LIMIT 12)
  SELECT json_build_object(
    'date', (at AT TIME ZONE tz)::date, 'timezone', tz, 'at', at,
    'companies', (SELECT cardinality(ids) FROM shown),
    'kpis', json_build_object(
      'openTickets', (SELECT count(*) FROM t WHERE t.status <> 5 AND t.create_date < at),
      'slaBreaches', (SELECT count(*) FROM t WHERE t.status <> 5 AND t.create_date < at AND t.due_date_time < at),
      'openedToday', (SELECT count(*) FROM t WHERE t.create_date >= (SELECT starts FROM day) AND t.create_date < at),
      'resolvedToday', (SELECT count(*) FROM t
                        WHERE t.status = 5 AND t.completed_date >= (SELECT starts FROM day) AND t.completed_date < at)),
    'needsAttention', (SELECT coalesce(json_agg(json_build_object(
        'ticketId', o.id, 'ticketNumber', o.ticket_number, 'title', o.title, 'priority', o.priority,
        'companyName', o.company_name, 'dueDateTime', o.due_date_time) ORDER BY o.due_date_time, o.id), '[]')
      FROM overdue o),
    'workers', (SELECT coalesce(jsonb_agg(w - 'activity24h'), '[]') FROM jsonb_array_elements(worker_status_json(at)::jsonb) w))
$$;
