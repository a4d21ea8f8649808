-- The dashboards' functions, cheaper to run and to plan (issue 36). Under the morning load
-- (bench/ops-console-morning --statements: 1M tickets, 1,000 callouts a second, 50 users) the mobile
-- dashboard, the overview, the trends and the workers took 58-72 % of the database's time. Each
-- function below that replaces one gives the same text as it, for every input: the same queries,
-- in a shape the planner and the executor handle with less work.
--
-- - worker_status_json(): each worker's runs are read once and counted per hour in one pass.
--   worker_json() (0023) counted each of the 24 hours with two scans of all the runs, so its cost
--   grew with the runs of a day times 48; it is dropped, nothing else calls it.
-- - dashboard_overview_json() (0038): the days' first instants are PL/pgSQL variables, not a CTE,
--   and every call is planned with their values (plan_cache_mode = force_custom_plan). From a CTE
--   the planner could not see the bounds: it took a third of all tickets for each range, sized its
--   hash tables for that (and wrote one to a temporary file), and for the open tickets created
--   before the days and due within them it could pick either index. Once callouts had updated the
--   newest tickets (120,000 updates of the newest 100,000, as the morning load does in two
--   minutes) it read every open ticket created before the days through tickets_open_created,
--   visiting the heap for each (66,000 heap fetches): 40 ms a call instead of 6. With the values,
--   it reads tickets_open_due from the first day on. A generic plan, which would save the
--   planning (about 1 ms), has the same blindness, and was measured to make the same choice. The
--   overview also groups its candidate tickets once, where it read them four times. Its body is
--   now dashboard_days_json(), for any number of days. (Neither change made the trends
--   measurably faster: they stay as 0038 has them.)
-- - mobile_dashboard_json() (0034): PL/pgSQL, so its plan stays on the connection (as a SQL
--   function with a SET clause it was planned again on every call), and its figures are those of
--   two days, not eight: it shows today's and the delta from yesterday.

-- GET /api/status/workers, as worker_status_json() and worker_json() of 0020/0023 gave it, but each
-- worker's runs are read once and counted per hour in one pass. worker_json() counted each of the
-- 24 hours with two scans of all the runs: 2.3 ms with no run, 17 ms with a sync run a minute, 62 ms
-- with 5,000 analyses a day as well (issue 36). A run's hour is date_bin('1 hour', finished_at,
-- starts), starts being the first of the 24 UTC hours; `at` is in the last of them.
CREATE OR REPLACE FUNCTION worker_status_json(at timestamptz) RETURNS json LANGUAGE plpgsql STABLE
SET jit = off AS $$
DECLARE
  starts timestamptz := date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '23 hours';
BEGIN
  RETURN (
    WITH runs AS (
      SELECT 1 AS w, finished_at, status = 'succeeded' AS ok FROM analysis_jobs
      WHERE status IN ('succeeded', 'failed') AND finished_at >= starts AND finished_at <= at
      UNION ALL
      SELECT 2, finished_at, status = 'succeeded' FROM rmm_executions
      WHERE status IN ('succeeded', 'failed') AND finished_at >= starts AND finished_at <= at
      UNION ALL
      SELECT 3, finished_at, status = 'succeeded' FROM sync_history
      WHERE status IN ('succeeded', 'failed') AND finished_at >= starts AND finished_at <= at),
    hourly AS (
      SELECT w, date_bin('1 hour', finished_at, starts) AS h,
             count(*) FILTER (WHERE ok) AS success, count(*) FILTER (WHERE NOT ok) AS failure,
             count(*) FILTER (WHERE NOT ok AND finished_at > at - interval '1 hour') AS recent_failures
      FROM runs GROUP BY 1, 2),
    workers AS (
      SELECT v.w, v.name, v.configured, v.in_flight,
             (SELECT coalesce(sum(recent_failures), 0)::bigint FROM hourly x WHERE x.w = v.w) AS failures,
             (SELECT json_agg(json_build_object('hour', hours.h, 'success', coalesce(x.success, 0),
                                                'failure', coalesce(x.failure, 0)) ORDER BY hours.h)
              FROM generate_series(starts, starts + interval '23 hours', interval '1 hour') hours(h)
              LEFT JOIN hourly x ON x.w = v.w AND x.h = hours.h) AS activity
      FROM (VALUES (1, 'analyzer', true, (SELECT count(*) FROM analysis_jobs WHERE status = 'running')),
                   (2, 'remote-management', EXISTS (SELECT 1 FROM rmm_executions),
                    (SELECT count(*) FROM rmm_executions WHERE status = 'running')),
                   (3, 'sync-scheduler', true, (SELECT count(*) FROM sync_history WHERE status = 'running')))
           v(w, name, configured, in_flight)),
    shown AS (
      SELECT w, CASE WHEN NOT configured
        THEN json_build_object('name', name, 'configured', false, 'activity24h', activity)
        ELSE json_build_object('name', name, 'configured', true, 'inFlight', in_flight, 'failuresLastHour', failures,
                               'status', worker_state(failures, in_flight), 'activity24h', activity) END AS j
      FROM workers)
    SELECT json_build_array((SELECT j FROM shown WHERE w = 1), (SELECT j FROM shown WHERE w = 2),
                            (SELECT j FROM shown WHERE w = 3)));
END
$$;

DROP FUNCTION worker_json(text, boolean, bigint, jsonb, timestamptz);

-- The overview's figures for today and the `days` days before it: {date, timezone, at, opened,
-- resolved, openTotal, slaBreaches}, each figure dashboard_figure_json() of the days' values,
-- today's first. Which tickets are read one by one and which come from open_ticket_counts is as
-- in 0038's dashboard_overview_json(), for any number of days: the overview asks for 7 (its
-- average7), the mobile dashboard for 1 (it shows today and the delta from yesterday only, and
-- reads a quarter of the tickets the seven days take; with fewer than seven days average7 is null,
-- and nobody reads it).
CREATE FUNCTION dashboard_days_json(tz text, at timestamptz, days integer) RETURNS json LANGUAGE plpgsql STABLE
SET jit = off SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  starts timestamptz[] := array(SELECT ((at AT TIME ZONE tz)::date - n)::timestamp AT TIME ZONE tz
                                FROM generate_series(0, days) n ORDER BY n DESC);
  ends timestamptz[] := starts[2:days + 1];
BEGIN
  -- starts: the instants today and the `days` local days before it began, oldest first
  -- (starts[days + 1] is today's). An instant's day is found by width_bucket() against them: day n
  -- (0 = today) is days + 1 - its bucket. No row is converted to the zone: the zone's midnights are
  -- converted once, here.
  RETURN (
    WITH today AS (SELECT (at AT TIME ZONE tz)::date AS d),
    opened AS (
      SELECT days + 1 - width_bucket(t.create_date, starts) AS n, count(*) AS k FROM counted_tickets t
      WHERE t.create_date >= starts[1] AND t.create_date < at
      GROUP BY 1),
    resolved AS (
      SELECT days + 1 - width_bucket(t.completed_date, starts) AS n, count(*) AS k FROM counted_tickets t
      WHERE t.status = 5 AND t.completed_date >= starts[1] AND t.completed_date < at
      GROUP BY 1),
    -- the tickets read one by one: every ticket that may have been open at one of the instants
    -- (open now, or completed since) but the open ones created and due before them
    candidates AS (
      SELECT t.create_date, NULL::timestamptz AS done, t.due_date_time FROM counted_tickets t
      WHERE t.status <> 5 AND t.create_date >= starts[1]
      UNION ALL
      SELECT t.create_date, NULL::timestamptz, t.due_date_time FROM counted_tickets t
      WHERE t.status <> 5 AND t.create_date < starts[1] AND t.due_date_time >= starts[1]
      UNION ALL
      SELECT t.create_date, t.completed_date, t.due_date_time FROM counted_tickets t
      WHERE t.status = 5 AND t.completed_date >= starts[1] AND t.create_date IS NOT NULL),
    -- the open tickets not read: open at every instant, overdue at all of them when due at all
    counted AS (SELECT coalesce(sum(open), 0)::bigint AS open, coalesce(sum(open_due), 0)::bigint AS open_due
                FROM counted_open_tickets()),
    -- Each candidate once, grouped: a few hundred rows whatever the number of tickets. Past day n
    -- (1 to days) ends when day n - 1 starts (ends = starts[2:days + 1]): an instant is before that
    -- end when days - width_bucket(it, ends) >= n. A ticket was open at the end of days lo..hi
    -- (created by then, not completed by then) and overdue at the end of days lo..hi_breach;
    -- `open_at_instant` and `breach_at_instant` say the same of `at` itself (rule 4: due dates
    -- against it, not a date); `left_out` and `left_out_due` mark the open ones, which the counts
    -- also hold.
    spans AS (
      SELECT CASE WHEN c.done IS NULL THEN 1 ELSE days + 1 - width_bucket(c.done, ends) END AS lo,
             days - width_bucket(c.create_date, ends) AS hi,
             CASE WHEN c.due_date_time IS NULL THEN 0
                  ELSE least(days - width_bucket(c.create_date, ends), days - width_bucket(c.due_date_time, ends)) END
               AS hi_breach,
             c.create_date < at AND (c.done IS NULL OR c.done >= at) AS open_at_instant,
             c.create_date < at AND (c.done IS NULL OR c.done >= at) AND c.due_date_time < at AS breach_at_instant,
             c.done IS NULL AS left_out, c.done IS NULL AND c.due_date_time IS NOT NULL AS left_out_due,
             count(*) AS k
      FROM candidates c GROUP BY 1, 2, 3, 4, 5, 6, 7),
    settled AS (
      SELECT (SELECT open FROM counted) - coalesce(sum(k) FILTER (WHERE left_out), 0)::bigint AS open,
             (SELECT open_due FROM counted) - coalesce(sum(k) FILTER (WHERE left_out_due), 0)::bigint AS breaches
      FROM spans),
    open_at AS (
      SELECT d.n, coalesce(sum(s.k) FILTER (WHERE d.n BETWEEN s.lo AND s.hi), 0)::bigint AS open,
             coalesce(sum(s.k) FILTER (WHERE d.n BETWEEN s.lo AND s.hi_breach), 0)::bigint AS breaches
      FROM generate_series(1, days) d(n) LEFT JOIN spans s ON true GROUP BY d.n
      UNION ALL
      SELECT 0, coalesce(sum(k) FILTER (WHERE open_at_instant), 0)::bigint,
             coalesce(sum(k) FILTER (WHERE breach_at_instant), 0)::bigint
      FROM spans),
    series AS (
      SELECT a.n, coalesce(o.k, 0) AS opened, coalesce(r.k, 0) AS resolved, a.open + st.open AS open,
             a.breaches + st.breaches AS breaches
      FROM open_at a CROSS JOIN settled st LEFT JOIN opened o ON o.n = a.n LEFT JOIN resolved r ON r.n = a.n)
    SELECT json_build_object(
      'date', (SELECT d FROM today), 'timezone', tz, 'at', at,
      'opened', dashboard_figure_json(array(SELECT opened FROM series ORDER BY n)),
      'resolved', dashboard_figure_json(array(SELECT resolved FROM series ORDER BY n)),
      'openTotal', dashboard_figure_json(array(SELECT open FROM series ORDER BY n)),
      'slaBreaches', dashboard_figure_json(array(SELECT breaches FROM series ORDER BY n))));
END
$$;

-- GET /api/dashboard/overview: the eight days.
CREATE OR REPLACE FUNCTION dashboard_overview_json(tz text, at timestamptz) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT dashboard_days_json(tz, at, 7)
$$;

-- GET /api/mobile/dashboard, as in 0034 (0020 says what each part is), its figures from today and
-- yesterday only.
CREATE OR REPLACE FUNCTION mobile_dashboard_json(tz text, at timestamptz, disabled text[]) RETURNS json
LANGUAGE plpgsql STABLE SET jit = off AS $$
BEGIN
  RETURN (
  WITH o AS MATERIALIZED (SELECT dashboard_days_json(tz, at, 1)::jsonb AS j),
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
  FROM o, b);
END
$$;