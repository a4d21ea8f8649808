-- ops-console demo data (scripts/demo-data; safe to run again): what the PSA sync would bring.
-- (Analyzer runs are real now: scripts/demo-data asks the analyzer for them.)
INSERT INTO company_categories (id, name, is_active) VALUES
  (1, 'Managed services', true), (2, 'Break-fix', true), (3, 'Prospect', true)
ON CONFLICT (id) DO NOTHING;

INSERT INTO company_classifications (id, label, is_active, sort_order) VALUES
  (1, 'Gold', true, 1), (2, 'Silver', true, 2), (3, 'Bronze', true, 3)
ON CONFLICT (id) DO NOTHING;

INSERT INTO companies (id, company_name, company_number, company_type, company_category_id, classification_id,
                       is_active, city, web_address, create_date, last_activity_date) VALUES
  (0, 'Our MSP', 'MSP', 5, 1, 1, true, 'Leeds', 'https://msp.example', now() - interval '6 years', now()),
  (174, 'Contoso Ltd', 'C-174', 1, 1, 1, true, 'Manchester', 'https://contoso.example', now() - interval '4 years', now() - interval '2 hours'),
  (175, 'Fabrikam GmbH', 'C-175', 1, 1, 2, true, 'Berlin', 'https://fabrikam.example', now() - interval '3 years', now() - interval '1 day'),
  (176, 'Northwind Traders', 'C-176', 1, 2, 3, true, 'York', 'https://northwind.example', now() - interval '2 years', now() - interval '3 days'),
  (177, 'Wingtip Toys', 'C-177', 1, 3, 3, false, 'Bristol', NULL, now() - interval '1 year', now() - interval '200 days')
ON CONFLICT (id) DO NOTHING;

-- Notification event keys (issue 7); the spec does not name them, these are what an MSP's
-- console raises. gitforge_push comes with its migration (0011).
INSERT INTO notify_event_keys (key, description, sort_order) VALUES
  ('ticket_escalated', 'a ticket was escalated', 10),
  ('sla_breach', 'a ticket breached its SLA', 20),
  ('backup_failed', 'a customer backup failed', 30),
  ('phishing_reported', 'a user reported a phishing mail', 40)
ON CONFLICT (key) DO NOTHING;
