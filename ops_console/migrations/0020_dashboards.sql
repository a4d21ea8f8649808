-- Dashboards, worker status and the mobile views (issue 22; spec "Dashboards and status",
-- "Day-boundary rules"). Every function here takes the current instant as `at` (bound by the
-- caller: ops_console/dashboard/clock.hpp) and, where it speaks of days, the user's zone as `tz`.
-- Local dates are `(instant AT TIME ZONE tz)::date` (rules 2 and 3: a timestamptz converted once);
-- a local day starts at `day::timestamp AT TIME ZONE tz`. Rolling windows (SLA due dates, the last
-- hour, the last 24 hours, stalled after 5 minutes) are plain intervals back from `at` (rule 4).

-- The functions that read the tickets run with jit = off: their window bounds are parameters, so
-- the planner's default estimates cost them far above jit_above_cost at a million tickets, and
-- compiling them took 40 ms of a 53 ms overview that ran in 12 (bench/RESULTS.md, issue 22).

-- The dashboards' ticket queries at a million tickets (bench/ops-console-dashboards):
-- opened and resolved per day, open at an instant, the heatmap, and the mobile list's keyset.
-- Each covers what its queries read, so that they scan the index alone (a million tickets do not
-- fit in memory; the open ones, scattered over the table, would cost a page each).
CREATE INDEX tickets_created ON tickets (create_date) INCLUDE (company_id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_completed ON tickets (completed_date) INCLUDE (create_date, company_id, due_date_time)
  WHERE deleted_at IS NULL AND status = 5;
CREATE INDEX tickets_open_created ON tickets (create_date) INCLUDE (company_id, due_date_time, queue_id, priority)
  WHERE deleted_at IS NULL AND status <> 5;
-- The mobile list's keyset order, for the open tickets it shows by default and for any status.
CREATE INDEX tickets_mobile_open ON tickets ((coalesce(last_activity_date, '-infinity'::timestamptz)) DESC, id DESC)
  WHERE deleted_at IS NULL AND status <> 5;
CREATE INDEX tickets_mobile ON tickets ((coalesce(last_activity_date, '-infinity'::timestamptz)) DESC, id DESC)
  WHERE deleted_at IS NULL;
CREATE INDEX time_entries_worked ON time_entries ((coalesce(start_date_time, date_worked))) WHERE deleted_at IS NULL;
CREATE INDEX analysis_jobs_finished ON analysis_jobs (finished_at) WHERE status IN ('succeeded', 'failed');
CREATE INDEX sync_history_finished ON sync_history (finished_at) WHERE status IN ('succeeded', 'failed');

-- Backup job results and remote-management (RMM) script executions: the tables the mobile
-- dashboard and the worker status read. No integration fills them yet; until one does, their
-- parts of the views say configured: false (a table with no row has measured nothing).
CREATE TABLE backup_results (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  company_id   bigint,
  device       text NOT NULL,
  job_name     text,
  status       text NOT NULL CHECK (status IN ('succeeded', 'failed')),
  started_at   timestamptz,
  finished_at  timestamptz NOT NULL,
  error        text
);
CREATE INDEX backup_results_finished ON backup_results (finished_at);

CREATE TABLE rmm_executions (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  device       text NOT NULL,
  script       text NOT NULL,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  started_at   timestamptz,
  finished_at  timestamptz,
  error        text
);
CREATE INDEX rmm_executions_running ON rmm_executions (id) WHERE status = 'running';
CREATE INDEX rmm_executions_finished ON rmm_executions (finished_at) WHERE status IN ('succeeded', 'failed');

-- Company scope is opt-out (0004): the companies with an explicit out-of-scope row, and the
-- tickets the dashboards count: not deleted, and not of an out-of-scope company (tickets without
-- a company count). Views, so that the planner turns the rule into an anti-join.
CREATE VIEW out_of_scope_companies AS SELECT company_id FROM company_scope WHERE NOT in_scope;
CREATE VIEW counted_tickets AS
  SELECT t.* FROM tickets t
  WHERE t.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM out_of_scope_companies o WHERE o.company_id = t.company_id);

-- The companies a kiosk or mobile list shows (spec "Kiosk and mobile display settings"): a
-- category in the view's category list, not excluded, a classification in the included list,
-- and not out of scope. An empty category or classification list does not restrict.
CREATE FUNCTION display_company_ids(view text) RETURNS SETOF bigint LANGUAGE sql STABLE AS $$
  WITH s AS (
    SELECT (SELECT array(SELECT jsonb_array_elements_text(value)::bigint) FROM display_settings
            WHERE key = view || '_company_category_ids') AS categories,
           (SELECT array(SELECT jsonb_array_elements_text(value)::bigint) FROM display_settings
            WHERE key = view || '_excluded_company_ids') AS excluded,
           (SELECT array(SELECT jsonb_array_elements_text(value)::bigint) FROM display_settings
            WHERE key = view || '_included_classification_ids') AS classifications)
  SELECT c.id FROM companies c, s
  WHERE c.deleted_at IS NULL
    AND (cardinality(s.categories) = 0 OR c.company_category_id = ANY (s.categories))
    AND NOT (c.id = ANY (coalesce(s.excluded, '{}')))
    AND (cardinality(s.classifications) = 0 OR c.classification_id = ANY (s.classifications))
    AND NOT EXISTS (SELECT 1 FROM out_of_scope_companies o WHERE o.company_id = c.id)
$$;

-- One figure from its eight values, today first: {today, yesterday, delta, average7}.
CREATE FUNCTION dashboard_figure_json(v bigint[]) RETURNS json LANGUAGE sql IMMUTABLE AS $$
  SELECT json_build_object('today', v[1], 'yesterday', v[2], 'delta', v[1] - v[2],
                           'average7', round((v[2] + v[3] + v[4] + v[5] + v[6] + v[7] + v[8]) / 7.0, 1))
$$;

-- The companies the mobile lists hide: all but those display_company_ids('mobile') shows. The
-- lists exclude these (an anti-join the planner estimates well, so it keeps the keyset index's
-- order and stops after a page) and tickets whose company the copy does not hold.
CREATE VIEW mobile_hidden_companies AS
  SELECT c.id FROM companies c WHERE c.id NOT IN (SELECT display_company_ids('mobile'));

-- Today's figures and their comparisons (GET /api/dashboard/overview), in the zone `tz` at `at`:
--   opened:      tickets created on the day;
--   resolved:    tickets completed (status 5, completed_date) on the day;
--   open:        tickets open at the instant: today at `at`, a past day at its end (created
--                before, not completed by then; the copy keeps no status history, so a reopened
--                ticket counts from its create date);
--   slaBreaches: of those, the ones whose due date had passed at that instant (rule 4: the due
--                date against the instant, not a date).
-- Each has today, yesterday, delta (today - yesterday) and average7 (the mean of the seven days
-- before today, one decimal). Tickets of out-of-scope companies never count.
CREATE FUNCTION dashboard_overview_json(tz text, at timestamptz) RETURNS json LANGUAGE sql STABLE
SET jit = off AS $$
  -- starts: the instants the last eight local days began, oldest first (starts[8] is today's). An
  -- instant's day is found by width_bucket() against them: day n (0 = today) is 8 - its bucket.
  -- No row is converted to the zone: the zone's midnights are converted once, here.
  WITH today AS (SELECT (at AT TIME ZONE tz)::date AS d),
  bounds AS (SELECT starts, starts[2:8] AS ends FROM (
               SELECT array_agg(((SELECT d FROM today) - n)::timestamp AT TIME ZONE tz ORDER BY n DESC) AS starts
               FROM generate_series(0, 7) n) x),
  opened AS (
    SELECT 8 - width_bucket(t.create_date, b.starts) AS n, count(*) AS k FROM counted_tickets t, bounds b
    WHERE t.create_date >= b.starts[1] AND t.create_date < at
    GROUP BY 1),
  resolved AS (
    SELECT 8 - width_bucket(t.completed_date, b.starts) AS n, count(*) AS k FROM counted_tickets t, bounds b
    WHERE t.status = 5 AND t.completed_date >= b.starts[1] AND t.completed_date < at
    GROUP BY 1),
  -- every ticket that may have been open at one of the eight instants: open now, or completed since
  candidates AS (
    SELECT t.create_date, NULL::timestamptz AS done, t.due_date_time FROM counted_tickets t
    WHERE t.status <> 5 AND t.create_date IS NOT NULL
    UNION ALL
    SELECT t.create_date, t.completed_date, t.due_date_time FROM counted_tickets t, bounds b
    WHERE t.status = 5 AND t.completed_date >= b.starts[1] AND t.create_date IS NOT NULL),
  -- Past day n (1-7) ends when day n - 1 starts (ends = starts[2:8]): an instant is before that
  -- end when 7 - width_bucket(it, ends) >= n. A ticket was open at the end of days lo..hi
  -- (created by then, not completed by then) and overdue at the end of days lo..hi_breach.
  -- Grouped, these are a few hundred rows whatever the number of tickets.
  spans AS (
    SELECT lo, hi, hi_breach, count(*) AS k FROM (
      SELECT CASE WHEN c.done IS NULL THEN 1 ELSE 8 - width_bucket(c.done, b.ends) END AS lo,
             7 - width_bucket(c.create_date, b.ends) AS hi,
             CASE WHEN c.due_date_time IS NULL THEN 0
                  ELSE least(7 - width_bucket(c.create_date, b.ends),
                             7 - width_bucket(c.due_date_time, b.ends)) END AS hi_breach
      FROM candidates c, bounds b) x
    GROUP BY 1, 2, 3),
  open_at AS (
    SELECT d.n, coalesce(sum(s.k) FILTER (WHERE d.n BETWEEN s.lo AND s.hi), 0)::bigint AS open,
           coalesce(sum(s.k) FILTER (WHERE d.n BETWEEN s.lo AND s.hi_breach), 0)::bigint AS breaches
    FROM generate_series(1, 7) d(n) LEFT JOIN spans s ON true GROUP BY d.n
    UNION ALL  -- today: at the instant itself (rule 4: due dates against it, not against a date)
    SELECT 0, count(*) FILTER (WHERE c.create_date < at AND (c.done IS NULL OR c.done >= at)),
           count(*) FILTER (WHERE c.create_date < at AND (c.done IS NULL OR c.done >= at) AND c.due_date_time < at)
    FROM candidates c),
  series AS (
    SELECT a.n, coalesce(o.k, 0) AS opened, coalesce(r.k, 0) AS resolved, a.open, a.breaches
    FROM open_at a LEFT JOIN opened o ON o.n = a.n LEFT JOIN resolved r ON r.n = a.n)
  SELECT json_build_object(
    'date', (SELECT d FROM today), 'timezone', tz, 'at', at,
    'opened', dashboard_figure_json(array(SELECT opened FROM series ORDER BY n)),
    'resolved', dashboard_figure_json(array(SELECT resolved FROM series ORDER BY n)),
    'openTotal', dashboard_figure_json(array(SELECT open FROM series ORDER BY n)),
    'slaBreaches', dashboard_figure_json(array(SELECT breaches FROM series ORDER BY n)))
$$;

-- GET /api/dashboard/trends, in the zone `tz` at `at`, tickets of out-of-scope companies left out:
--   heatmap:    open tickets by queue and priority, with the picklists' labels;
--   volume:     the last 30 local days, oldest first, today last, zero-filled: created, completed;
--   resolution: the same days: the mean hours from creation to completion of the tickets completed
--               that day (null on a day with none);
--   engineers:  today's time entries by resource (when the work started, else the day worked),
--               most hours first.
CREATE FUNCTION dashboard_trends_json(tz text, at timestamptz) RETURNS json LANGUAGE sql STABLE
SET jit = off AS $$
  -- starts: the instants the last 30 local days began, oldest first (starts[30] is today's); an
  -- instant's day is its width_bucket() against them, as in dashboard_overview_json().
  WITH today AS (SELECT (at AT TIME ZONE tz)::date AS d),
  bounds AS (SELECT array_agg(((SELECT d FROM today) - n)::timestamp AT TIME ZONE tz ORDER BY n DESC) AS starts
             FROM generate_series(0, 29) n),
  days AS (SELECT i, (SELECT d FROM today) - 30 + i AS day FROM generate_series(1, 30) i),
  opened AS (
    SELECT width_bucket(t.create_date, b.starts) AS i, count(*) AS n FROM counted_tickets t, bounds b
    WHERE t.create_date >= b.starts[1] AND t.create_date < at
    GROUP BY 1),
  resolved AS (
    SELECT width_bucket(t.completed_date, b.starts) AS i, count(*) AS n,
           round((avg(extract(epoch FROM t.completed_date - t.create_date)) / 3600)::numeric, 2) AS mean_hours
    FROM counted_tickets t, bounds b
    WHERE t.status = 5 AND t.completed_date >= b.starts[1] AND t.completed_date < at
    GROUP BY 1),
  heat AS (
    SELECT t.queue_id, t.priority, count(*) AS n FROM counted_tickets t
    WHERE t.status <> 5 AND t.create_date < at
    GROUP BY 1, 2),
  work AS (
    SELECT e.resource_id, sum(e.hours_worked) AS hours FROM time_entries e, bounds b
    WHERE e.deleted_at IS NULL AND coalesce(e.start_date_time, e.date_worked) >= b.starts[30]
      AND coalesce(e.start_date_time, e.date_worked) < at
    GROUP BY 1)
  SELECT json_build_object(
    'date', (SELECT d FROM today), 'timezone', tz, 'at', at,
    'heatmap', (SELECT coalesce(json_agg(json_build_object(
                  'queueId', h.queue_id, 'queue', q.label, 'priority', h.priority, 'priorityLabel', p.label, 'count', h.n)
                  ORDER BY h.queue_id NULLS LAST, h.priority NULLS LAST), '[]'::json)
                FROM heat h
                LEFT JOIN psa_picklists q ON q.entity = 'Tickets' AND q.field = 'queueID' AND q.value = h.queue_id
                LEFT JOIN psa_picklists p ON p.entity = 'Tickets' AND p.field = 'priority' AND p.value = h.priority),
    'volume', (SELECT json_agg(json_build_object('date', d.day, 'opened', coalesce(o.n, 0), 'resolved', coalesce(r.n, 0))
                               ORDER BY d.i)
               FROM days d LEFT JOIN opened o ON o.i = d.i LEFT JOIN resolved r ON r.i = d.i),
    'resolution', (SELECT json_agg(json_build_object('date', d.day, 'meanHours', r.mean_hours, 'resolved', coalesce(r.n, 0))
                                   ORDER BY d.i)
                   FROM days d LEFT JOIN resolved r ON r.i = d.i),
    'engineers', (SELECT coalesce(json_agg(json_build_object(
                    'resourceId', w.resource_id, 'name', nullif(trim(concat_ws(' ', r.first_name, r.last_name)), ''),
                    'hours', round(w.hours, 2)) ORDER BY w.hours DESC, w.resource_id), '[]'::json)
                  FROM work w LEFT JOIN resources r ON r.id = w.resource_id))
$$;

-- An integration's state from its recorded call outcomes (0014): unknown without a call, failing
-- when the last failure is newer than the last success, else ok.
CREATE FUNCTION integration_state(h integration_health) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN h.last_success_at IS NULL AND h.last_failure_at IS NULL THEN 'unknown'
              WHEN h.last_failure_at IS NOT NULL
                   AND (h.last_success_at IS NULL OR h.last_failure_at > h.last_success_at) THEN 'failing'
              ELSE 'ok' END
$$;

-- GET /api/dashboard/integration-health: every known integration (the settings rows and any key
-- with recorded calls) but the disabled ones, by key.
CREATE FUNCTION integration_board_json(disabled text[]) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(json_build_object(
    'key', k.key, 'state', integration_state(h), 'lastSuccessAt', h.last_success_at, 'lastFailureAt', h.last_failure_at,
    'lastError', h.last_error, 'lastLatencyMs', h.last_latency_ms, 'calls', coalesce(h.calls, 0),
    'failures', coalesce(h.failures, 0)) ORDER BY k.key), '[]'::json)
  FROM (SELECT key FROM integration_settings UNION SELECT key FROM integration_health) k
  LEFT JOIN integration_health h ON h.key = k.key
  WHERE NOT (k.key = ANY (disabled))
$$;

-- The derived worker status (spec "Derived status rules"): down when something failed in the
-- last hour and nothing is in flight, warn when something failed, else ok.
CREATE FUNCTION worker_state(failures bigint, in_flight bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN failures > 0 AND in_flight = 0 THEN 'down' WHEN failures > 0 THEN 'warn' ELSE 'ok' END
$$;

-- The derived backup status: ok at 95 % or more, warn at 80 % or more, else down.
CREATE FUNCTION backup_state(percent numeric) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN percent >= 95 THEN 'ok' WHEN percent >= 80 THEN 'warn' ELSE 'down' END
$$;

-- A worker's figures from its finished runs (finished_at, succeeded) and its in-flight count:
-- failures in the hour before `at`, and 24 hourly buckets, oldest first, the last the hour `at`
-- falls in (UTC hours; rule 4), zero-filled. A worker that is not configured shows only that.
CREATE FUNCTION worker_json(name text, configured boolean, in_flight bigint, runs jsonb, at timestamptz)
RETURNS json LANGUAGE sql STABLE AS $$
  WITH finished AS (
    SELECT (r->>'finishedAt')::timestamptz AS finished_at, (r->>'succeeded')::boolean AS succeeded
    FROM jsonb_array_elements(runs) r),
  hours AS (SELECT date_trunc('hour', at AT TIME ZONE 'UTC') - make_interval(hours => n) AS h
            FROM generate_series(23, 0, -1) n),
  failures AS (SELECT count(*) AS n FROM finished WHERE NOT succeeded AND finished_at > at - interval '1 hour')
  SELECT CASE WHEN NOT configured THEN json_build_object('name', name, 'configured', false) ELSE json_build_object(
    'name', name, 'configured', true, 'inFlight', in_flight, 'failuresLastHour', (SELECT n FROM failures),
    'status', worker_state((SELECT n FROM failures), in_flight),
    'activity24h', (SELECT json_agg(json_build_object(
                      'hour', h.h AT TIME ZONE 'UTC',
                      'success', (SELECT count(*) FROM finished f WHERE f.succeeded
                                  AND f.finished_at >= h.h AT TIME ZONE 'UTC'
                                  AND f.finished_at < (h.h + interval '1 hour') AT TIME ZONE 'UTC'),
                      'failure', (SELECT count(*) FROM finished f WHERE NOT f.succeeded
                                  AND f.finished_at >= h.h AT TIME ZONE 'UTC'
                                  AND f.finished_at < (h.h + interval '1 hour') AT TIME ZONE 'UTC'))
                    ORDER BY h.h) FROM hours h)) END
$$;

-- GET /api/status/workers: the analyzer (analysis_jobs), the remote-management executions
-- (rmm_executions: configured once any row exists) and the sync scheduler (sync_history), each
-- through worker_json() with its runs of the 24 hours before `at`.
CREATE FUNCTION worker_status_json(at timestamptz) RETURNS json LANGUAGE sql STABLE
SET jit = off AS $$
  WITH since AS (SELECT date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '23 hours' AS starts)
  SELECT json_build_array(
    worker_json('analyzer', true, (SELECT count(*) FROM analysis_jobs WHERE status = 'running'),
      (SELECT coalesce(jsonb_agg(jsonb_build_object('finishedAt', finished_at, 'succeeded', status = 'succeeded')), '[]')
       FROM analysis_jobs WHERE status IN ('succeeded', 'failed') AND finished_at >= (SELECT starts FROM since)
         AND finished_at <= at), at),
    worker_json('remote-management', EXISTS (SELECT 1 FROM rmm_executions),
      (SELECT count(*) FROM rmm_executions WHERE status = 'running'),
      (SELECT coalesce(jsonb_agg(jsonb_build_object('finishedAt', finished_at, 'succeeded', status = 'succeeded')), '[]')
       FROM rmm_executions WHERE status IN ('succeeded', 'failed') AND finished_at >= (SELECT starts FROM since)
         AND finished_at <= at), at),
    worker_json('sync-scheduler', true, (SELECT count(*) FROM sync_history WHERE status = 'running'),
      (SELECT coalesce(jsonb_agg(jsonb_build_object('finishedAt', finished_at, 'succeeded', status = 'succeeded')), '[]')
       FROM sync_history WHERE status IN ('succeeded', 'failed') AND finished_at >= (SELECT starts FROM since)
         AND finished_at <= at), at))
$$;

-- Backup success in the 24 hours before `at` (rule 4): {configured, succeeded, failed, percent,
-- status}; percent (one decimal) and status are null when nothing finished in the window; the
-- status follows the exact ratio, not the rounded percent.
CREATE FUNCTION backup_success_json(at timestamptz) RETURNS json LANGUAGE sql STABLE AS $$
  WITH w AS (
    SELECT count(*) FILTER (WHERE status = 'succeeded') AS ok, count(*) FILTER (WHERE status = 'failed') AS failed
    FROM backup_results WHERE finished_at > at - interval '24 hours' AND finished_at <= at),
  p AS (SELECT 100.0 * ok / nullif(ok + failed, 0) AS percent FROM w)
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM backup_results) THEN json_build_object('configured', false)
    ELSE json_build_object('configured', true, 'succeeded', w.ok, 'failed', w.failed, 'percent', round(p.percent, 1),
                           'status', CASE WHEN p.percent IS NULL THEN NULL ELSE backup_state(p.percent) END) END
  FROM w, p
$$;

-- GET /api/mobile/dashboard: {date, timezone, kpis, needsAttention, workers}.
--   kpis: open tickets, SLA breaches (tone attention above 0), opened and resolved today (from
--     dashboard_overview_json(), so the same scope and days), backup success in 24 hours
--     (backup_success_json(); tone attention unless ok);
--   needsAttention: the ten most overdue open tickets, failed backups of the last 24 hours (ten
--     latest), pipeline runs stalled (running for more than 5 minutes), failing integrations
--     (disabled ones left out), workers not ok;
--   workers: worker_status_json() without the hourly buckets.
CREATE FUNCTION mobile_dashboard_json(tz text, at timestamptz, disabled text[]) RETURNS json
LANGUAGE sql STABLE SET jit = off AS $$
  WITH o AS (SELECT dashboard_overview_json(tz, at)::jsonb AS j),
  b AS (SELECT backup_success_json(at)::jsonb AS j),
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

-- A row of the mobile ticket list (GET /api/mobile/tickets), with the picklists' labels and
-- whether its due date has passed at `at` while it is open (rule 4).
CREATE FUNCTION mobile_ticket_json(t tickets, at timestamptz) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', t.id, 'ticketNumber', t.ticket_number, 'title', t.title,
    'status', t.status, 'statusLabel', (SELECT label FROM psa_picklists WHERE entity = 'Tickets' AND field = 'status'
                                          AND value = t.status),
    'priority', t.priority, 'priorityLabel', (SELECT label FROM psa_picklists WHERE entity = 'Tickets'
                                                AND field = 'priority' AND value = t.priority),
    'queueId', t.queue_id, 'companyId', t.company_id,
    'companyName', (SELECT company_name FROM companies WHERE id = t.company_id),
    'assignedResourceId', t.assigned_resource_id, 'createDate', t.create_date,
    'lastActivityDate', t.last_activity_date, 'dueDateTime', t.due_date_time,
    'slaBreached', t.status IS DISTINCT FROM 5 AND t.due_date_time < at)
$$;
