-- GET /api/dashboard/trends with the 29 days before today kept by the service (issue 36). Of the
-- trends' work, reading 30 days of opened and resolved tickets is nearly all (at 1M tickets, 10 of
-- 12 ms on a quiet database; 33 ms on average under the morning load, a fifth of the database's
-- time). Those days are over: what they count changes only when an old ticket is edited or the
-- company scope changes. So the service keeps each zone's 29 past days (ops_console/api/dashboard.cpp,
-- TRENDS_KEEP_SECONDS) and hands them back; this function then reads only today's tickets.
--
-- dashboard_trends(tz, at, kept): `answer` is the route's body, exactly as dashboard_trends_json()
-- (0038) gives it. `kept` is what an earlier call returned as `past`, or NULL. It is used only when it
-- is for the same local day and the same companies out of scope; otherwise (and when NULL) all 30
-- days are read, and `past` holds the 29 days before today ({date, scope, volume: [29], resolution:
-- [29]}) for the caller to keep. When `kept` was used, `past` is NULL. Today's figures, the heatmap
-- and the engineers are read on every call. dashboard_trends_json() (0038), which this release no
-- longer calls, stays for a binary of the release before that serves during an upgrade.
CREATE FUNCTION dashboard_trends(tz text, at timestamptz, kept json)
RETURNS TABLE (answer json, past json) LANGUAGE plpgsql STABLE
SET jit = off AS $$
DECLARE
  today date := (at AT TIME ZONE tz)::date;
  -- the companies out of scope, as a fingerprint: a change of scope makes a kept entry unused
  scope text := (SELECT md5(coalesce(string_agg(company_id::text, ',' ORDER BY company_id), ''))
                 FROM out_of_scope_companies);
  reuse boolean := kept IS NOT NULL AND kept->>'date' = today::text AND kept->>'scope' = scope;
  -- starts: the instants the last 30 local days began, oldest first (starts[30] is today's); an
  -- instant's day is its width_bucket() against them. from_day: the first day read.
  starts timestamptz[] := array(SELECT (today - n)::timestamp AT TIME ZONE tz FROM generate_series(29, 0, -1) n);
  from_day integer := CASE WHEN reuse THEN 30 ELSE 1 END;
BEGIN
  RETURN QUERY
    WITH days AS (SELECT i, today - 30 + i AS day FROM generate_series(from_day, 30) i),
    opened AS (
      SELECT width_bucket(t.create_date, starts) AS i, count(*) AS n FROM counted_tickets t
      WHERE t.create_date >= starts[from_day] AND t.create_date < at
      GROUP BY 1),
    resolved AS (
      SELECT width_bucket(t.completed_date, starts) AS i, count(*) AS n,
             round((avg(extract(epoch FROM t.completed_date - t.create_date)) / 3600)::numeric, 2) AS mean_hours
      FROM counted_tickets t
      WHERE t.status = 5 AND t.completed_date >= starts[from_day] AND t.completed_date < at
      GROUP BY 1),
    volume AS (
      SELECT d.i, json_build_object('date', d.day, 'opened', coalesce(o.n, 0), 'resolved', coalesce(r.n, 0)) AS e
      FROM days d LEFT JOIN opened o ON o.i = d.i LEFT JOIN resolved r ON r.i = d.i
      UNION ALL
      SELECT k.i, k.e FROM json_array_elements(kept->'volume') WITH ORDINALITY AS k(e, i) WHERE reuse),
    resolution AS (
      SELECT d.i, json_build_object('date', d.day, 'meanHours', r.mean_hours, 'resolved', coalesce(r.n, 0)) AS e
      FROM days d LEFT JOIN resolved r ON r.i = d.i
      UNION ALL
      SELECT k.i, k.e FROM json_array_elements(kept->'resolution') WITH ORDINALITY AS k(e, i) WHERE reuse),
    heat AS (
      SELECT h.queue_id, h.priority, sum(h.n)::bigint AS n FROM (
        SELECT c.queue_id, c.priority, c.open AS n FROM counted_open_tickets() c
        UNION ALL
        SELECT t.queue_id, t.priority, -count(*) FROM counted_tickets t
        WHERE t.status <> 5 AND t.create_date >= at
        GROUP BY 1, 2) h
      GROUP BY 1, 2 HAVING sum(h.n) > 0),
    work AS (
      SELECT e.resource_id, sum(e.hours_worked) AS hours FROM time_entries e
      WHERE e.deleted_at IS NULL AND coalesce(e.start_date_time, e.date_worked) >= starts[30]
        AND coalesce(e.start_date_time, e.date_worked) < at
      GROUP BY 1)
    SELECT json_build_object(
      'date', today, 'timezone', tz, 'at', at,
      'heatmap', (SELECT coalesce(json_agg(json_build_object(
                    'queueId', h.queue_id, 'queue', q.label, 'priority', h.priority, 'priorityLabel', p.label, 'count', h.n)
                    ORDER BY h.queue_id NULLS LAST, h.priority NULLS LAST), '[]'::json)
                  FROM heat h
                  LEFT JOIN psa_picklists q ON q.entity = 'Tickets' AND q.field = 'queueID' AND q.value = h.queue_id
                  LEFT JOIN psa_picklists p ON p.entity = 'Tickets' AND p.field = 'priority' AND p.value = h.priority),
      'volume', (SELECT json_agg(v.e ORDER BY v.i) FROM volume v),
      'resolution', (SELECT json_agg(r.e ORDER BY r.i) FROM resolution r),
      'engineers', (SELECT coalesce(json_agg(json_build_object(
                      'resourceId', w.resource_id, 'name', nullif(trim(concat_ws(' ', r.first_name, r.last_name)), ''),
                      'hours', round(w.hours, 2)) ORDER BY w.hours DESC, w.resource_id), '[]'::json)
                    FROM work w LEFT JOIN resources r ON r.id = w.resource_id)),
    CASE WHEN NOT reuse THEN json_build_object(
      'date', today, 'scope', scope,
      'volume', (SELECT json_agg(v.e ORDER BY v.i) FROM volume v WHERE v.i < 30),
      'resolution', (SELECT json_agg(r.e ORDER BY r.i) FROM resolution r WHERE r.i < 30)) END;
END
$$;
