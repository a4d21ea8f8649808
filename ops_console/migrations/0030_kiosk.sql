-- The kiosk wall display (issue 34): a wall screen signs in with an account of its own, made with
-- `ops-console create-user --kiosk`, which may read the kiosk view (GET /api/kiosk/wall) and who is
-- signed in, and nothing else (identity.hpp, Access::kiosk_view()). It is never an administrator.
ALTER TABLE users ADD COLUMN kiosk boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD CONSTRAINT users_kiosk_not_admin CHECK (NOT (kiosk AND is_admin));

-- GET /api/kiosk/wall, in the zone `tz` at `at`, for the companies the kiosk display settings show
-- (display_company_ids('kiosk'): their categories, classifications and exclusions, in scope):
--   companies: how many;
--   kpis: open tickets and SLA breaches at the instant (due date passed, rule 4), tickets opened
--     and resolved (status 5) since the local day began;
--   needsAttention: the 12 most overdue open tickets, with their company and priority;
--   workers: worker_status_json() without the hourly buckets.
CREATE FUNCTION kiosk_wall_json(tz text, at timestamptz) RETURNS json LANGUAGE sql STABLE SET jit = off AS $$
  WITH shown AS (SELECT id FROM display_company_ids('kiosk') id),
  t AS (SELECT t.* FROM tickets t JOIN shown s ON s.id = t.company_id WHERE t.deleted_at IS NULL),
  day AS (SELECT ((at AT TIME ZONE tz)::date)::timestamp AT TIME ZONE tz AS starts),
  overdue AS (
    SELECT t.id, t.ticket_number, t.title, t.priority, t.due_date_time, c.company_name FROM t
    LEFT JOIN companies c ON c.id = t.company_id
    WHERE t.status <> 5 AND t.create_date < at AND t.due_date_time < at
    ORDER BY t.due_date_time, t.id LIMIT 12)
  SELECT json_build_object(
    'date', (at AT TIME ZONE tz)::date, 'timezone', tz, 'at', at,
    'companies', (SELECT count(*) FROM shown),
    'kpis', json_build_object(
      'openTickets', (SELECT count(*) FROM t WHERE t.status <> 5 AND t.create_date < at),
      'slaBreaches', (SELECT count(*) FROM t WHERE t.status <> 5 AND t.create_date < at AND t.due_date_time < at),
      'openedToday', (SELECT count(*) FROM t, day WHERE t.create_date >= day.starts AND t.create_date < at),
      'resolvedToday', (SELECT count(*) FROM t, day
                        WHERE t.status = 5 AND t.completed_date >= day.starts AND t.completed_date < at)),
    'needsAttention', (SELECT coalesce(json_agg(json_build_object(
        'ticketId', o.id, 'ticketNumber', o.ticket_number, 'title', o.title, 'priority', o.priority,
        'companyName', o.company_name, 'dueDateTime', o.due_date_time) ORDER BY o.due_date_time, o.id), '[]')
      FROM overdue o),
    'workers', (SELECT coalesce(jsonb_agg(w - 'activity24h'), '[]') FROM jsonb_array_elements(worker_status_json(at)::jsonb) w))
$$;
