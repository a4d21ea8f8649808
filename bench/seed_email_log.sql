-- Realistic email_log rows for the mail-triage benchmark: rows :from .. :to (psql variables).
--   psql -v from=1 -v to=10000 -f bench/seed_email_log.sql
-- 5,000 senders over 8 domains with skewed volume (sender = 5000·u³: a few senders send most
-- mail), 14 months of received dates, mostly completed rows, ten labels, subjects that carry a
-- ticket number. Row g has id md5(g)::uuid, so pgbench and wrk can address the same rows.
INSERT INTO email_log (id, mailbox, message_id, sender_address, sender_name, sender_type, subject,
                       received_at, status, llm_classification, llm_confidence, final_action, error,
                       processed_at)
SELECT md5(g::text)::uuid,
       'inbox@msp.example',
       'AAMkAGI-bench-' || g,
       'sender' || sender || '@' || (ARRAY['contoso', 'fabrikam', 'northwind', 'adatum', 'litware',
                                           'tailspin', 'wingtip', 'proseware'])[1 + sender % 8] || '.example',
       'Sender ' || sender,
       (ARRAY['customer', 'customer', 'customer', 'vendor', 'vendor', 'vendor', 'whitelist',
              'unknown', 'unknown', 'unknown'])[1 + sender % 10],
       (ARRAY['Invoice', 'Re: Ticket', 'Your weekly newsletter', 'Password reset', 'Meeting notes',
              'Backup report', 'Alert: disk space low', 'Order confirmation', 'Security notice',
              'Renewal quote'])[1 + floor(u_subject * 10)::int] || ' #' || (g % 100000),
       received,
       status,
       CASE WHEN status = 'completed' THEN label END,  -- skipped (whitelisted) mail is never classified
       CASE WHEN status = 'completed' THEN round((0.5 + u_subject / 2)::numeric, 2) END,
       CASE WHEN status = 'completed' THEN 'keep' END,
       CASE WHEN status = 'failed' THEN 'language model timed out after 30 s' END,
       CASE WHEN status IN ('completed', 'skipped', 'failed') THEN received + interval '2 minutes' END
FROM (
  SELECT g,
         floor(5000 * power(random(), 3))::int AS sender,
         random() AS u_subject,
         now() - random() * interval '425 days' AS received,
         CASE WHEN u < 0.85 THEN 'completed' WHEN u < 0.92 THEN 'skipped' WHEN u < 0.97 THEN 'failed'
              WHEN u < 0.99 THEN 'pending' ELSE 'processing' END AS status,
         (ARRAY['support_request', 'billing', 'sales', 'notification', 'newsletter', 'marketing',
                'spam', 'phishing', 'personal', 'other'])[1 + floor(random() * 10)::int] AS label
  FROM (SELECT g, random() AS u FROM generate_series(:from::bigint, :to::bigint) g) numbered
) r;
