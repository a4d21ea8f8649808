-- The PSA copy the dashboards' and the morning's benchmarks measure (bench/ops-console-dashboards,
-- bench/ops-console-morning): `psql -v total=N -v per_day=D -f bench/seed_psa_copy.sql`, over an
-- empty copy. 500 companies (ten out of scope), 40 engineers, and tickets 1..total at per_day
-- tickets a day, the newest now: those of the last two days are open, and one in twenty of the
-- last 90 days'; the rest were completed within ten days (never after now). Five queues, four
-- priorities; time entries for the last 30 days' tickets.
INSERT INTO companies (id, company_name, company_category_id, classification_id)
SELECT n, 'Company ' || n, 1, NULL FROM generate_series(1, 500) n
ON CONFLICT (id) DO NOTHING;
INSERT INTO company_scope (company_id, in_scope, updated_by)
SELECT n, false, 'bench' FROM generate_series(1, 10) n
ON CONFLICT (company_id) DO NOTHING;
INSERT INTO resources (id, first_name, last_name, email)
SELECT n, 'Tech', 'Number ' || n, 'tech' || n || '@msp.example' FROM generate_series(1, 40) n
ON CONFLICT (id) DO NOTHING;

INSERT INTO tickets (id, ticket_number, title, status, priority, queue_id, company_id, assigned_resource_id,
                     create_date, completed_date, last_activity_date, due_date_time)
SELECT n, 'T' || n, 'Ticket ' || n, s.status, 1 + n % 4, 1 + n % 5, 1 + n % 500, 1 + n % 40,
       c.created, CASE WHEN s.status = 5 THEN c.touched END, c.touched, c.created + interval '2 days'
FROM generate_series(1, :total) n,
     LATERAL (SELECT created, least(created + make_interval(mins => (n * 37) % 14400), now()) AS touched
              FROM (SELECT now() - make_interval(secs => 86400.0 * (:total - n) / :per_day) AS created) x) c,
     LATERAL (SELECT CASE WHEN c.created > now() - interval '2 days'
                            OR (c.created > now() - interval '90 days' AND n % 20 = 0)
                          THEN (ARRAY[1, 8, 7])[1 + n % 3] ELSE 5 END AS status) s;
INSERT INTO time_entries (id, ticket_id, resource_id, start_date_time, hours_worked)
SELECT id, id, assigned_resource_id, create_date + interval '1 hour', 0.5 FROM tickets
WHERE create_date > now() - interval '30 days';
VACUUM ANALYZE tickets;
VACUUM ANALYZE time_entries;
