-- The open tickets counted per company, queue and priority, kept by statement-level triggers as
-- ticket_counts is (0037), so that the overview, the trends' heatmap and the mobile dashboard no
-- longer read every open ticket of the copy on each request (issue 36). Under the morning load
-- (1M tickets, 41,652 open) those three were the routes left with a p99 over 100 ms: each read
-- all the open tickets' index entries, twice for the mobile dashboard.
--
-- An open ticket, as the dashboards have counted it since 0020: not deleted, status not 5, with a
-- creation date. `open_due` counts those of them with a due date. A missing company, queue or
-- priority is kept under -1 (PSA ids are never negative).
CREATE TABLE open_ticket_counts (
  company_key  bigint  NOT NULL,
  queue_key    integer NOT NULL,
  priority_key integer NOT NULL,
  open         bigint  NOT NULL,
  open_due     bigint  NOT NULL,
  PRIMARY KEY (company_key, queue_key, priority_key)
);

-- One function for the four triggers, as ticket_counts_follow() (0037): each statement adds what it
-- changed per key in one upsert, and an update that changes no open ticket's key, due date or
-- openness writes nothing (so the PSA sync's refreshes of open tickets take no lock here). The keys
-- are upserted in order, so two statements that change the same keys cannot deadlock on them.
CREATE FUNCTION open_ticket_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO open_ticket_counts AS c (company_key, queue_key, priority_key, open, open_due)
    SELECT coalesce(company_id, -1), coalesce(queue_id, -1), coalesce(priority, -1), count(*), count(due_date_time)
    FROM after_rows WHERE deleted_at IS NULL AND status <> 5 AND create_date IS NOT NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (company_key, queue_key, priority_key)
      DO UPDATE SET open = c.open + excluded.open, open_due = c.open_due + excluded.open_due;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO open_ticket_counts AS c (company_key, queue_key, priority_key, open, open_due)
    SELECT company_key, queue_key, priority_key, sum(open), sum(open_due)
    FROM (SELECT coalesce(company_id, -1) AS company_key, coalesce(queue_id, -1) AS queue_key,
                 coalesce(priority, -1) AS priority_key, -1 AS open, -(due_date_time IS NOT NULL)::int AS open_due
          FROM before_rows WHERE deleted_at IS NULL AND status <> 5 AND create_date IS NOT NULL
          UNION ALL
          SELECT coalesce(company_id, -1), coalesce(queue_id, -1), coalesce(priority, -1), 1,
                 (due_date_time IS NOT NULL)::int
          FROM after_rows WHERE deleted_at IS NULL AND status <> 5 AND create_date IS NOT NULL) changed
    GROUP BY 1, 2, 3 HAVING sum(open) <> 0 OR sum(open_due) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (company_key, queue_key, priority_key)
      DO UPDATE SET open = c.open + excluded.open, open_due = c.open_due + excluded.open_due;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO open_ticket_counts AS c (company_key, queue_key, priority_key, open, open_due)
    SELECT coalesce(company_id, -1), coalesce(queue_id, -1), coalesce(priority, -1), -count(*), -count(due_date_time)
    FROM before_rows WHERE deleted_at IS NULL AND status <> 5 AND create_date IS NOT NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (company_key, queue_key, priority_key)
      DO UPDATE SET open = c.open + excluded.open, open_due = c.open_due + excluded.open_due;
  ELSE  -- TRUNCATE
    DELETE FROM open_ticket_counts;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER open_ticket_counts_insert AFTER INSERT ON tickets REFERENCING NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION open_ticket_counts_follow();
CREATE TRIGGER open_ticket_counts_update AFTER UPDATE ON tickets
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION open_ticket_counts_follow();
CREATE TRIGGER open_ticket_counts_delete AFTER DELETE ON tickets REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION open_ticket_counts_follow();
CREATE TRIGGER open_ticket_counts_truncate AFTER TRUNCATE ON tickets
  FOR EACH STATEMENT EXECUTE FUNCTION open_ticket_counts_follow();

-- The tickets already copied (the triggers above hold writers off until this commits).
INSERT INTO open_ticket_counts (company_key, queue_key, priority_key, open, open_due)
SELECT coalesce(company_id, -1), coalesce(queue_id, -1), coalesce(priority, -1), count(*), count(due_date_time)
FROM tickets WHERE deleted_at IS NULL AND status <> 5 AND create_date IS NOT NULL GROUP BY 1, 2, 3;

-- The open tickets by due date: those due within the overview's eight days, and the mobile
-- dashboard's ten most overdue (ordered by due date and id) without reading the rest.
CREATE INDEX tickets_open_due ON tickets (due_date_time, id) INCLUDE (company_id, create_date)
  WHERE deleted_at IS NULL AND status <> 5;

-- The open tickets of the companies in scope, from the counts: in all, with a due date, and by
-- queue and priority (-1 back to null).
CREATE FUNCTION counted_open_tickets()
RETURNS TABLE (queue_id integer, priority integer, open bigint, open_due bigint) LANGUAGE sql STABLE AS $$
  SELECT nullif(c.queue_key, -1), nullif(c.priority_key, -1), sum(c.open)::bigint, sum(c.open_due)::bigint
  FROM open_ticket_counts c
  WHERE NOT EXISTS (SELECT 1 FROM out_of_scope_companies o WHERE o.company_id = c.company_key)
  GROUP BY 1, 2
$$;

-- GET /api/dashboard/overview, as in 0020, but the open tickets created before the eight days and
-- due before them (or never) are not read: each of them was open, and overdue if it has a due
-- date, at every one of the eight instants, so they are the counts less the open tickets read.
-- Read are: the open tickets created within the eight days or later (tickets_open_created), those
-- created before but due within them or later (tickets_open_due), and the tickets completed within
-- them (tickets_completed), as before.
-- PL/pgSQL rather than SQL, here and in the trends: a SQL function with a SET clause is planned
-- again on every call, while PL/pgSQL keeps its plan on the connection (8.2 -> 5.8 ms a call at 1M
-- tickets; bench/RESULTS.md, 2026-11-28).
CREATE OR REPLACE FUNCTION dashboard_overview_json(tz text, at timestamptz) RETURNS json LANGUAGE plpgsql STABLE
SET jit = off AS $$
BEGIN
  -- starts: the instants the last eight local days began, oldest first (starts[8] is today's). An
  -- instant's day is found by width_bucket() against them: day n (0 = today) is 8 - its bucket.
  -- No row is converted to the zone: the zone's midnights are converted once, here.
  RETURN (
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
    -- the tickets read one by one: every ticket that may have been open at one of the eight instants
    -- (open now, or completed since) but the open ones created and due before them
    candidates AS (
      SELECT t.create_date, NULL::timestamptz AS done, t.due_date_time FROM counted_tickets t, bounds b
      WHERE t.status <> 5 AND t.create_date >= b.starts[1]
      UNION ALL
      SELECT t.create_date, NULL::timestamptz, t.due_date_time FROM counted_tickets t, bounds b
      WHERE t.status <> 5 AND t.create_date < b.starts[1] AND t.due_date_time >= b.starts[1]
      UNION ALL
      SELECT t.create_date, t.completed_date, t.due_date_time FROM counted_tickets t, bounds b
      WHERE t.status = 5 AND t.completed_date >= b.starts[1] AND t.create_date IS NOT NULL),
    -- the open tickets not read: open at all eight instants, overdue at all of them when due at all
    counted AS (SELECT coalesce(sum(open), 0)::bigint AS open, coalesce(sum(open_due), 0)::bigint AS open_due
                FROM counted_open_tickets()),
    settled AS (
      SELECT (SELECT open FROM counted) - count(*) FILTER (WHERE c.done IS NULL) AS open,
             (SELECT open_due FROM counted) - count(*) FILTER (WHERE c.done IS NULL AND c.due_date_time IS NOT NULL)
               AS breaches
      FROM candidates c),
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

-- GET /api/dashboard/trends, as in 0020, but its heatmap (the open tickets by queue and priority,
-- created before the instant) is the counts less the open tickets created at or after it.
CREATE OR REPLACE FUNCTION dashboard_trends_json(tz text, at timestamptz) RETURNS json LANGUAGE plpgsql STABLE
SET jit = off AS $$
BEGIN
  -- starts: the instants the last 30 local days began, oldest first (starts[30] is today's); an
  -- instant's day is its width_bucket() against them, as in dashboard_overview_json().
  RETURN (
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
      SELECT h.queue_id, h.priority, sum(h.n)::bigint AS n FROM (
        SELECT c.queue_id, c.priority, c.open AS n FROM counted_open_tickets() c
        UNION ALL
        SELECT t.queue_id, t.priority, -count(*) FROM counted_tickets t
        WHERE t.status <> 5 AND t.create_date >= at
        GROUP BY 1, 2) h
      GROUP BY 1, 2 HAVING sum(h.n) > 0),
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
                    FROM work w LEFT JOIN resources r ON r.id = w.resource_id)));
END
$$;
