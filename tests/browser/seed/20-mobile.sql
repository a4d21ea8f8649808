-- What the mobile pages show (tests/browser/mobile_*.test.mjs), beside 10-psa.sql's tickets: every
-- kind of the dashboard's needs-attention list, the analyzer's feed, an accounting copy for finance
-- and 90 days of engagement. Times are relative to now(); the tests compare each page with the
-- routes' own figures, never with numbers written here.

-- The technician the tickets test signs in as (seed/users.txt): "mine" is the tickets assigned to
-- the PSA resource with the user's address, every tenth one of 10-psa.sql's.
INSERT INTO resources (id, first_name, last_name, email, user_name, is_active) VALUES
  (29682890, 'Tess', 'Tickets', 'm-tickets@browser.example', 'tess', true)
ON CONFLICT (id) DO NOTHING;
UPDATE tickets SET assigned_resource_id = 29682890 WHERE id BETWEEN 9001 AND 9090 AND id % 10 = 1;

-- Backups: 40 succeeded and 3 failed in the last 24 hours (93 %: warn, a KPI in attention), older
-- results outside the window.
INSERT INTO backup_results (company_id, device, job_name, status, started_at, finished_at, error)
SELECT 174 + n % 3, 'srv-' || lpad(n::text, 2, '0'), 'Nightly image', 'succeeded',
       now() - n * interval '33 minutes' - interval '20 minutes', now() - n * interval '33 minutes', NULL
FROM generate_series(1, 40) AS n;
INSERT INTO backup_results (company_id, device, job_name, status, started_at, finished_at, error) VALUES
  (174, 'srv-contoso-dc1', 'Nightly image', 'failed', now() - interval '3 hours 10 minutes', now() - interval '3 hours',
   'VSS snapshot timed out after 600 s'),
  (175, 'nas-fabrikam', 'File share copy', 'failed', now() - interval '7 hours 5 minutes', now() - interval '7 hours',
   'destination full: 0 bytes left on /volume1'),
  (176, 'srv-northwind-sql', 'SQL full backup', 'failed', now() - interval '20 hours 30 minutes', now() - interval '20 hours',
   'login failed for the backup account'),
  (174, 'srv-old', 'Nightly image', 'succeeded', now() - interval '3 days 1 hour', now() - interval '3 days', NULL);

-- A workflow run that stalled (running for 25 minutes; pipeline 3, which no worker of the test
-- service touches).
INSERT INTO pipeline_executions (pipeline_id, ticket_id, status, started_at)
VALUES (3, 9004, 'running', now() - interval '25 minutes');

-- A failing integration: its last failure is newer than its last success.
INSERT INTO integration_health (key, last_success_at, last_failure_at, last_error, last_latency_ms, calls, failures)
VALUES ('mailsec', now() - interval '2 days', now() - interval '40 minutes',
        'HTTP 401: the application key was refused', 812, 240, 31)
ON CONFLICT (key) DO NOTHING;

-- The analyzer worker: runs over the last day, two failed in the last hour and none in flight
-- (down). The sync scheduler: a clean run every two hours.
INSERT INTO analysis_jobs (ticket_id, status, attempts, created_at, started_at, finished_at, error)
SELECT 9000 + n, CASE WHEN n <= 2 THEN 'failed' ELSE 'succeeded' END, 1,
       now() - n * interval '50 minutes' - interval '2 minutes', now() - n * interval '50 minutes' - interval '1 minute',
       now() - n * interval '25 minutes', CASE WHEN n <= 2 THEN 'the model did not answer in time' END
FROM generate_series(1, 28) AS n;
INSERT INTO sync_history (entity_type, kind, started_at, finished_at, status, counts)
SELECT 'tickets', 'incremental', now() - n * interval '2 hours' - interval '1 minute', now() - n * interval '2 hours',
       'succeeded', '{"tickets": 4}'
FROM generate_series(1, 11) AS n;

-- The analyzer feed: the latest analysis of tickets 9001 to 9041, one completed every 37 minutes
-- (every seventh failed, every fifth needing review), an older one of tickets 9001 to 9005 that
-- the feed does not show, and one of ticket 9041 that never completed (last: nulls sort last).
INSERT INTO analyses (ticket_id, status, model, category, urgency, sentiment, confidence, summary, needs_review,
                      created_at, completed_at, error)
SELECT 9000 + n,
       CASE WHEN n % 7 = 0 THEN 'failed' ELSE 'succeeded' END,
       'gpt-test',
       CASE WHEN n % 7 = 0 THEN NULL
            ELSE (ARRAY['Hardware', 'Network', 'Onboarding', 'Email', 'Backup', 'Accounts', 'Security'])[1 + n % 7] END,
       CASE WHEN n % 7 = 0 THEN NULL ELSE (ARRAY['low', 'medium', 'high', 'critical'])[1 + n % 4] END,
       'neutral', 0.8,
       CASE WHEN n % 7 = 0 THEN NULL
            ELSE (ARRAY['The printer lost its network address after a switch restart; a DHCP reservation fixes it.',
                        'Tunnel renegotiates every hour: the phase-2 lifetime differs between the two ends.',
                        'Laptop, licence and mailbox for a starter on Monday; the checklist is complete.',
                        'The mailbox is at its quota; archiving older items frees 12 GB.',
                        'The job failed on a locked file; a VSS-aware schedule avoids it.',
                        'A self-service reset is possible; the account is not locked.',
                        'Firmware 7.2.8 fixes the advisory; a maintenance window is needed.'])[1 + n % 7] END,
       n % 5 = 0,
       now() - n * interval '37 minutes' - interval '2 minutes',
       now() - n * interval '37 minutes',
       CASE WHEN n % 7 = 0 THEN 'the model did not answer in time' END
FROM generate_series(1, 40) AS n;
INSERT INTO analyses (ticket_id, status, model, category, urgency, summary, created_at, completed_at)
SELECT 9000 + n, 'succeeded', 'gpt-test', 'Hardware', 'low', 'An earlier analysis, replaced by the latest.',
       now() - interval '3 days', now() - interval '3 days' + interval '1 minute'
FROM generate_series(1, 5) AS n;
INSERT INTO analyses (ticket_id, status, model, created_at, completed_at, error)
VALUES (9041, 'failed', 'gpt-test', now() - interval '2 days', NULL, 'the worker stopped mid-run');

-- Accounting: a connected organisation (the tokens are placeholders: finance reads only the copy),
-- an invoice every five days over 13 months (due 7, 14 or 30 days after), the 40 latest open,
-- payments every four days over 14 months.
INSERT INTO accounting_connection (connection_id, tenant_id, tenant_name, base_currency, access_token, refresh_token,
                                   access_expires_at)
VALUES ('6d1c2a0e-0000-4000-8000-000000000001', '6d1c2a0e-0000-4000-8000-0000000000aa', 'Browser Test MSP Ltd', 'EUR',
        'v1.placeholder', 'v1.placeholder', now() + interval '30 minutes')
ON CONFLICT DO NOTHING;
INSERT INTO accounting_invoices (tenant_id, id, number, type, contact_name, status, invoice_date, due_date,
                                 currency_code, currency_rate, sub_total, total, amount_due, amount_paid)
SELECT '6d1c2a0e-0000-4000-8000-0000000000aa',
       ('6d1c2a0e-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid,
       'INV-' || lpad(n::text, 4, '0'), 'ACCREC',
       (ARRAY['Contoso Ltd', 'Fabrikam GmbH', 'Northwind Traders', 'Tailspin Toys', 'Wide World Importers'])[1 + n % 5],
       -- the 40 latest are open (about a third of those part-paid), the older ones paid
       CASE WHEN n <= 40 THEN 'AUTHORISED' ELSE 'PAID' END,
       current_date - n * 5 + 3, current_date - n * 5 + 3 + (ARRAY[30, 14, 7])[1 + n % 3],
       'EUR', 1,
       1200 + (n * 373) % 4800, round((1200 + (n * 373) % 4800) * 1.2, 2),
       CASE WHEN n > 40 THEN 0 WHEN n % 3 = 0 THEN round((1200 + (n * 373) % 4800) * 0.6, 2)
            ELSE round((1200 + (n * 373) % 4800) * 1.2, 2) END,
       CASE WHEN n > 40 THEN round((1200 + (n * 373) % 4800) * 1.2, 2) WHEN n % 3 = 0 THEN round((1200 + (n * 373) % 4800) * 0.6, 2)
            ELSE 0 END
FROM generate_series(1, 80) AS n
ON CONFLICT DO NOTHING;
INSERT INTO accounting_payments (tenant_id, id, invoice_id, payment_type, status, payment_date, amount, currency_rate,
                                 reference)
SELECT '6d1c2a0e-0000-4000-8000-0000000000aa',
       ('6d1c2a0e-0000-4000-9000-' || lpad(n::text, 12, '0'))::uuid,
       ('6d1c2a0e-0000-4000-8000-' || lpad((40 + n % 40 + 1)::text, 12, '0'))::uuid,
       'ACCRECPAYMENT', CASE WHEN n = 7 THEN 'DELETED' ELSE 'AUTHORISED' END,
       current_date - n * 4, 800 + (n * 211) % 3000, 1, 'Payment ' || n
FROM generate_series(0, 110) AS n
ON CONFLICT DO NOTHING;

-- Engagement, UTC days: mail-security counts for the last 60 days (today included), the mail
-- platform's report (with display names) for the 30 days before; PSA time of the three technicians
-- on working days. Ada, Grace and Alan are PSA resources (their names come from there); Dana and
-- Eve are known from the report only.
INSERT INTO mailsec_message_counts (user_email, day, sent, received)
SELECT u.email, (now() AT TIME ZONE 'UTC')::date - d, (u.k * 3 + d * 7) % 19 + u.k, (u.k * 11 + d * 5) % 41 + 10
FROM (VALUES ('ada@msp.example', 1), ('grace@msp.example', 2), ('alan@msp.example', 3), ('dana@msp.example', 4),
             ('eve@msp.example', 5)) AS u(email, k),
     generate_series(0, 59) AS d
WHERE (d + u.k) % 6 <> 0;
INSERT INTO mailplatform_usage_days (user_email, day, display_name, sent, received, read, report_refresh_date)
SELECT u.email, (now() AT TIME ZONE 'UTC')::date - d, u.name, (u.k * 5 + d) % 15 + 2, (u.k * 7 + d * 3) % 30 + 8, 20,
       (now() AT TIME ZONE 'UTC')::date - 3
FROM (VALUES ('ada@msp.example', 'Ada Lovelace', 1), ('grace@msp.example', 'Grace Hopper', 2),
             ('dana@msp.example', 'Dana Whitfield', 4), ('eve@msp.example', 'Eve Moneypenny', 5)) AS u(email, name, k),
     generate_series(60, 89) AS d;
INSERT INTO time_entries (id, ticket_id, resource_id, date_worked, start_date_time, end_date_time, hours_worked)
SELECT 71000 + r.k * 100 + d, 9001 + (d + r.k) % 90, r.id,
       date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - d * interval '1 day',
       date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - d * interval '1 day' + interval '9 hours',
       date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - d * interval '1 day' + interval '9 hours'
         + ((d + r.k) % 4 + 1) * interval '1 hour',
       (d + r.k) % 4 + 1
FROM (VALUES (29682885, 1), (29682886, 2), (29682887, 3)) AS r(id, k),
     generate_series(1, 89) AS d
WHERE extract(isodow FROM now() - d * interval '1 day') < 6
ON CONFLICT (id) DO NOTHING;
