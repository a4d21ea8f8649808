-- What preferences.test.mjs needs: the notification event keys the matrix lists (the demo's, from
-- scripts/demo-ops-console.sql; gitforge_push comes with migration 0011), and two plain users of
-- its own, one per viewport, so that the themes and zones it sets never reach the administrator
-- the other files share. Their password is "preferences-browser-test"; the hash is what
-- `ops-console create-user` made of it (argon2id, libsodium's encoded form), verified as any other.
INSERT INTO notify_event_keys (key, description, sort_order) VALUES
  ('ticket_escalated', 'a ticket was escalated', 10),
  ('sla_breach', 'a ticket breached its SLA', 20),
  ('backup_failed', 'a customer backup failed', 30),
  ('phishing_reported', 'a user reported a phishing mail', 40)
ON CONFLICT (key) DO NOTHING;

INSERT INTO users (email, name, password_hash) VALUES
  ('prefs-desktop@browser.example', 'Preferences Desktop',
   '$argon2id$v=19$m=65536,t=2,p=1$est+zo3tZH4O1OwzBixgng$yFEUaQTqIMbnCWsBB5gz71TKU9mgW5c9buYIxJw9Hes'),
  ('prefs-phone@browser.example', 'Preferences Phone',
   '$argon2id$v=19$m=65536,t=2,p=1$est+zo3tZH4O1OwzBixgng$yFEUaQTqIMbnCWsBB5gz71TKU9mgW5c9buYIxJw9Hes')
ON CONFLICT DO NOTHING;
