-- What the page tests find in ops-console's copy of the PSA (tests/browser/run loads every
-- seed/*.sql, in name order, after the migrations): companies, picklists, resources, 90 tickets
-- spread over the last 40 days, and today's time. Times are relative to now(), so the figures
-- move with the day; the tests compare each page with the routes' own figures, never with numbers
-- written here.
INSERT INTO company_categories (id, name, is_active) VALUES (1, 'Managed services', true), (2, 'Break-fix', true)
ON CONFLICT (id) DO NOTHING;
INSERT INTO company_classifications (id, label, is_active, sort_order) VALUES (1, 'Gold', true, 1), (2, 'Silver', true, 2)
ON CONFLICT (id) DO NOTHING;
INSERT INTO companies (id, company_name, company_number, company_type, company_category_id, classification_id,
                       is_active, create_date, last_activity_date) VALUES
  (174, 'Contoso Ltd', 'C-174', 1, 1, 1, true, now() - interval '4 years', now()),
  (175, 'Fabrikam GmbH', 'C-175', 1, 1, 1, true, now() - interval '3 years', now()),
  (176, 'Northwind Traders', 'C-176', 1, 1, 1, true, now() - interval '2 years', now())
ON CONFLICT (id) DO NOTHING;

INSERT INTO psa_picklists (entity, field, value, label, sort_order) VALUES
  ('Tickets', 'status', 1, 'New', 1), ('Tickets', 'status', 5, 'Complete', 5),
  ('Tickets', 'status', 7, 'Waiting Customer', 7), ('Tickets', 'status', 8, 'In Progress', 8),
  ('Tickets', 'priority', 1, 'High', 1), ('Tickets', 'priority', 2, 'Medium', 2),
  ('Tickets', 'priority', 3, 'Low', 3), ('Tickets', 'priority', 4, 'Critical', 0),
  ('Tickets', 'queueID', 5, 'Service Desk', 1), ('Tickets', 'queueID', 6, 'Projects', 2),
  ('Tickets', 'queueID', 8, 'Monitoring Alerts', 3)
ON CONFLICT DO NOTHING;

INSERT INTO resources (id, first_name, last_name, email, user_name, is_active) VALUES
  (29682885, 'Ada', 'Lovelace', 'ada@msp.example', 'ada', true),
  (29682886, 'Grace', 'Hopper', 'grace@msp.example', 'grace', true),
  (29682887, 'Alan', 'Turing', 'alan@msp.example', 'alan', true)
ON CONFLICT (id) DO NOTHING;

-- Ticket i: created i·10.7 hours ago (40 days back for the oldest), every third one completed 5 to
-- 29 hours after creation (if that is in the past), the others open in status 1, 8 or 7; some
-- overdue.
INSERT INTO tickets (id, ticket_number, title, status, priority, queue_id, company_id, assigned_resource_id,
                     create_date, completed_date, last_activity_date, due_date_time)
SELECT 9000 + i,
       'T2026' || lpad(i::text, 4, '0') || '.0001',
       (ARRAY['Printer offline', 'VPN drops every hour', 'New starter laptop', 'Mailbox full',
              'Backup job failed', 'Password reset', 'Firewall firmware update', 'Teams calls choppy'])[1 + i % 8]
         || ' #' || i,
       CASE WHEN i % 3 = 0 AND now() - i * interval '10.7 hours' + (5 + i % 25) * interval '1 hour' < now() THEN 5
            ELSE (ARRAY[1, 8, 7])[1 + i % 3] END,
       1 + i % 4,
       (ARRAY[5, 6, 8])[1 + i % 3],
       174 + i % 3,
       29682885 + i % 3,
       now() - i * interval '10.7 hours',
       CASE WHEN i % 3 = 0 AND now() - i * interval '10.7 hours' + (5 + i % 25) * interval '1 hour' < now()
            THEN now() - i * interval '10.7 hours' + (5 + i % 25) * interval '1 hour' END,
       now() - i * interval '5 hours',
       now() - i * interval '10.7 hours' + interval '3 days'
FROM generate_series(1, 90) AS i
ON CONFLICT (id) DO NOTHING;

-- Today's time: a few entries in the last hours.
INSERT INTO time_entries (id, ticket_id, resource_id, date_worked, start_date_time, end_date_time, hours_worked)
SELECT 70000 + i, 9000 + i, 29682885 + i % 3, now() - interval '1 hour', now() - (i * 20 + 30) * interval '1 minute',
       now() - (i * 20) * interval '1 minute', 0.5
FROM generate_series(1, 6) AS i
ON CONFLICT (id) DO NOTHING;
