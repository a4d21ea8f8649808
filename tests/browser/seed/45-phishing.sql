-- What the phishing pages show (tests/browser/phishing_*.test.mjs): two reported tickets whose
-- descriptions hold pasted headers (the browser tests' ops-console has no PSA, so only pasted
-- headers can be read there), one for each viewport's test to analyse through the page, with
-- senders of their own so that each opens a campaign of its own; and two campaigns as earlier
-- analyses left them (one open and classified, one closed), with their reports, messages and
-- indicators; and an older wave of 20 closed campaigns (below), for a second page. The tickets are
-- completed and 45 days old or older, outside every open list and today's figures.
INSERT INTO contacts (id, company_id, first_name, last_name, email_address, is_active) VALUES
  (8801, 174, 'Dana', 'Whitfield', 'dana.whitfield@contoso.example', true),
  (8802, 175, 'Jonas', 'Keller', 'jonas.keller@fabrikam.example', true)
ON CONFLICT (id) DO NOTHING;

INSERT INTO tickets (id, ticket_number, title, status, priority, queue_id, company_id, contact_id, create_date,
                     completed_date, last_activity_date, description)
SELECT 9500 + n, 'T2026' || (9500 + n) || '.0009', 'Phishing report: ' || subject, 5, 2, 5, 174 + n % 2, 8801 + n % 2,
       now() - interval '45 days', now() - interval '44 days', now() - interval '44 days',
       'Hi, I received the e-mail below and did not click anything. Its headers:' || E'\n\n'
       || 'Received: from smtp.' || domain || ' (smtp.' || domain || ' [192.0.2.' || n || '])' || E'\n'
       || 'Authentication-Results: mx1.contoso.example; spf=fail smtp.mailfrom=' || domain || '; dkim=none; dmarc=fail' || E'\n'
       || 'Return-Path: <bounce@' || domain || '>' || E'\n'
       || 'From: "Billing" <billing@' || domain || '>' || E'\n'
       || 'To: finance@contoso.example' || E'\n'
       || 'Subject: ' || subject || E'\n'
       || 'Date: ' || to_char(now() - interval '45 days', 'Dy, DD Mon YYYY HH24:MI:SS') || ' +0000' || E'\n'
       || 'Message-ID: <' || n || '.seed@' || domain || '>' || E'\n\n'
       || 'Thanks, Dana'
FROM (VALUES (1, 'invoice-desk-one.example', 'Invoice 4411 overdue'),
             (2, 'invoice-desk-two.example', 'Your payment was declined'),
             (3, 'paypa1-security.example', 'Your account access has been limited'),
             (4, 'parcel-notice.example', 'Your parcel is held at customs')) AS v(n, domain, subject)
ON CONFLICT (id) DO NOTHING;

INSERT INTO phishing_campaigns (id, status, first_seen, last_seen, created_at) VALUES
  ('4b7e0c52-5eed-4000-8000-000000000001', 'open', now() - interval '45 days', now() - interval '45 days', now() - interval '44 days'),
  ('4b7e0c52-5eed-4000-8000-000000000002', 'closed', now() - interval '60 days', now() - interval '59 days', now() - interval '59 days')
ON CONFLICT (id) DO NOTHING;
INSERT INTO phishing_reports (ticket_id, campaign_id, analyzed_at, created_at) VALUES
  (9503, '4b7e0c52-5eed-4000-8000-000000000001', now() - interval '44 days', now() - interval '44 days'),
  (9504, '4b7e0c52-5eed-4000-8000-000000000002', now() - interval '59 days', now() - interval '59 days')
ON CONFLICT (ticket_id) DO NOTHING;
INSERT INTO phishing_messages (report_id, sha256, source, subject, from_address, from_name, reply_to, return_path, message_id,
                               sent_at, spf, dkim, dmarc, body_excerpt)
SELECT r.id, md5(r.ticket_id::text) || md5(r.ticket_id::text || 'x'), 'pasted_headers', v.subject, v.sender, v.name,
       v.reply_to, 'bounce@' || v.domain, '<seed.' || r.ticket_id || '@' || v.domain || '>', now() - interval '45 days',
       'fail', 'none', 'fail', ''
FROM phishing_reports r
JOIN (VALUES (9503, 'paypa1-security.example', 'Your account access has been limited', 'service@paypal-notices.example',
              'PayPal', 'resolution-center@paypa1-security.example'),
             (9504, 'parcel-notice.example', 'Your parcel is held at customs', 'track@parcel-notice.example',
              'Parcel Service', NULL)) AS v(ticket, domain, subject, sender, name, reply_to) ON v.ticket = r.ticket_id
WHERE NOT EXISTS (SELECT 1 FROM phishing_messages m WHERE m.report_id = r.id);
INSERT INTO phishing_indicators (message_id, kind, value)
SELECT m.id, k.kind, k.value
FROM phishing_messages m
CROSS JOIN LATERAL (VALUES ('sender_address', m.from_address), ('sender_domain', split_part(m.from_address, '@', 2)),
                           ('return_path_domain', split_part(m.return_path, '@', 2)), ('spf', m.spf),
                           ('dmarc', m.dmarc)) AS k(kind, value)
WHERE m.message_id LIKE '<seed.%'
ON CONFLICT DO NOTHING;
INSERT INTO phishing_classifications (campaign_id, verdict, confidence, reasons, model, prompt_tokens, completion_tokens,
                                      created_at)
SELECT '4b7e0c52-5eed-4000-8000-000000000001', 'malicious', 0.92,
       '["The sender imitates PayPal from a look-alike domain", "SPF and DMARC fail"]', 'gpt-test', 412, 88,
       now() - interval '44 days'
WHERE NOT EXISTS (SELECT 1 FROM phishing_classifications WHERE campaign_id = '4b7e0c52-5eed-4000-8000-000000000001');

-- An older wave: 20 closed campaigns of one report each (tickets 9511 to 9530), so that the
-- campaign list has more than one page of 20.
INSERT INTO tickets (id, ticket_number, title, status, priority, queue_id, company_id, contact_id, create_date,
                     completed_date, last_activity_date, description)
SELECT 9510 + n, 'T2026' || (9510 + n) || '.0009', 'Phishing report: shared document ' || n, 5, 3, 5, 176, 8801,
       now() - (70 + n) * interval '1 day', now() - (69 + n) * interval '1 day', now() - (69 + n) * interval '1 day',
       'Forwarded as suspected phishing.'
FROM generate_series(1, 20) AS n
ON CONFLICT (id) DO NOTHING;
INSERT INTO phishing_campaigns (id, status, first_seen, last_seen, created_at)
SELECT ('4b7e0c52-5eed-4000-9000-' || lpad(n::text, 12, '0'))::uuid, 'closed',
       now() - (70 + n) * interval '1 day', now() - (70 + n) * interval '1 day', now() - (69 + n) * interval '1 day'
FROM generate_series(1, 20) AS n
ON CONFLICT (id) DO NOTHING;
INSERT INTO phishing_reports (ticket_id, campaign_id, analyzed_at, created_at)
SELECT 9510 + n, ('4b7e0c52-5eed-4000-9000-' || lpad(n::text, 12, '0'))::uuid, now() - (69 + n) * interval '1 day',
       now() - (69 + n) * interval '1 day'
FROM generate_series(1, 20) AS n
ON CONFLICT (ticket_id) DO NOTHING;
INSERT INTO phishing_messages (report_id, sha256, source, subject, from_address, sent_at, body_excerpt)
SELECT r.id, md5('wave' || r.ticket_id), 'pasted_headers', 'A document was shared with you (' || (r.ticket_id - 9510) || ')',
       'share@docs-wave-' || (r.ticket_id - 9510) || '.example', r.created_at - interval '1 hour', ''
FROM phishing_reports r
WHERE r.ticket_id BETWEEN 9511 AND 9530 AND NOT EXISTS (SELECT 1 FROM phishing_messages m WHERE m.report_id = r.id);
