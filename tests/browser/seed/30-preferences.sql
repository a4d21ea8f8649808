-- What preferences.test.mjs needs: the notification event keys the matrix lists (the demo's, from
-- scripts/demo-ops-console.sql; gitforge_push comes with migration 0011).
INSERT INTO notify_event_keys (key, description, sort_order) VALUES
  ('ticket_escalated', 'a ticket was escalated', 10),
  ('sla_breach', 'a ticket breached its SLA', 20),
  ('backup_failed', 'a customer backup failed', 30),
  ('phishing_reported', 'a user reported a phishing mail', 40)
ON CONFLICT (key) DO NOTHING;
