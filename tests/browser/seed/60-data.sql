-- What the Data pages show (tests/browser/data_*.test.mjs), beside 10-psa.sql's companies and
-- tickets: 72 PSA webhook callouts over the last 8 days (every entity type, processed and failed,
-- from three addresses), a tag catalogue (two groups, one inactive tag, one tag without its group),
-- a configuration item and a contact to tag, the PSA's tags on two tickets (one in the copy, one
-- older than it; one association deleted at the PSA), and three uploads of log evidence (one of them HTML:
-- still downloaded as an attachment) from an upload token whose secret nobody knows. Times are
-- relative to now(); the tests compare each page with the routes' own figures, never with numbers
-- written here.
INSERT INTO webhook_events (event_id, guid, entity_type, entity_id, action, status, error_message, source_ip, user_agent,
                            event_time, received_at)
SELECT 'seed-' || i,
       'a1b2c3d4-0000-4000-8000-' || lpad((i % 4)::text, 12, '0'),
       (ARRAY['Ticket', 'Ticket', 'Ticket', 'Company', 'Contact', 'ConfigurationItem', 'TimeEntry', 'Project', 'Task', 'Contract'])[1 + i % 10],
       9000 + i % 40,
       (ARRAY['Create', 'Update', 'Update', 'Delete'])[1 + i % 4],
       CASE WHEN i % 9 = 4 THEN 'failed' ELSE 'processed' END,
       CASE WHEN i % 9 = 4 THEN 'the PSA failed: HTTP 503 while fetching the entity' END,
       (ARRAY['203.0.113.10', '203.0.113.10', '198.51.100.7', '2001:db8::25'])[1 + i % 4],
       CASE WHEN i % 4 = 3 THEN 'Autotask-Webhook/2.1' ELSE 'Autotask-Webhook/2.0' END,
       now() - i * interval '2.6 hours' - interval '3 seconds',
       now() - i * interval '2.6 hours'
FROM generate_series(72, 1, -1) AS i  -- the newest last: ids grow with arrival, as the intake writes them
ON CONFLICT (event_id) DO NOTHING;

INSERT INTO tag_groups (id, name, is_active) VALUES (501, 'Contract tier', true), (502, 'Site', true)
ON CONFLICT (id) DO NOTHING;
INSERT INTO tags (id, tag_group_id, label, is_active) VALUES
  (5101, 501, 'Gold support', true), (5102, 501, 'Silver support', true), (5103, 501, 'Legacy tier', false),
  (5201, 502, 'Head office', true), (5202, 502, 'Branch', true),
  (5901, 599, 'Ungrouped', true)
ON CONFLICT (id) DO NOTHING;

INSERT INTO configuration_items (id, company_id, reference_title, serial_number, is_active) VALUES
  (77001, 174, 'Contoso file server', 'SN-77001', true)
ON CONFLICT (id) DO NOTHING;
INSERT INTO contacts (id, company_id, first_name, last_name, email_address, is_active) VALUES
  (66001, 175, 'Franz', 'Fabrikam', 'franz@fabrikam.example', true)
ON CONFLICT (id) DO NOTHING;

-- The PSA's ticket tags (read-only in the console): ticket 9001 of 10-psa.sql carries two (a third
-- association deleted at the PSA is not listed), ticket 8800001, older than the copy, one.
INSERT INTO ticket_tags (id, ticket_id, tag_id, deleted_at) VALUES
  (880001, 9001, 5101, NULL), (880002, 9001, 5201, NULL), (880003, 9001, 5202, now() - interval '1 day'),
  (880004, 8800001, 5901, NULL)
ON CONFLICT (id) DO NOTHING;

INSERT INTO upload_tokens (name, token_hash, created_at, last_used_at)
VALUES ('rmm-collector (seed)', encode(sha256(gen_random_uuid()::text::bytea), 'hex'), now() - interval '20 days', now() - interval '2 hours');
-- (each file an upload of one part, migration 0029, and its record)
WITH f AS (
  SELECT gen_random_uuid() AS id, t.id AS token_id, v.*
  FROM upload_tokens t,
       (VALUES (convert_to(repeat('2026-11-20 10:00:01 backup job started' || chr(10), 40), 'UTF8'), 'text/plain', 'backup-job.log',
                9001::bigint, 174::bigint, interval '2 hours'),
               (convert_to('<html><body><script>alert(1)</script>report</body></html>', 'UTF8'), 'text/html', 'report.html',
                NULL, 175, interval '1 day'),
               (convert_to('{"event":"disk","free":"2%"}', 'UTF8'), 'application/json', 'disk-check.json', 9002, NULL, interval '3 days'))
         AS v (body, type, name, ticket, company, age)
  WHERE t.name = 'rmm-collector (seed)'),
uploads AS (INSERT INTO log_evidence_uploads (id, token_id, started_at) SELECT id, token_id, now() - age FROM f),
parts AS (INSERT INTO log_evidence_parts (upload_id, seq, bytes) SELECT id, 0, body FROM f)
INSERT INTO log_evidence (id, token_id, sha256, size_bytes, content_type, file_name, ticket_id, company_id, uploaded_at)
SELECT id, token_id, encode(sha256(body), 'hex'), length(body), type, name, ticket, company, now() - age FROM f;
