-- What the Administration pages show (tests/browser/admin_*.test.mjs): a company of no ticket whose
-- scope and kiosk exclusion the tests switch and restore (so that no dashboard's figure moves
-- while they do), twelve pipeline executions of pipelines 41 and 42 (four fell back to the user's
-- route, two failed; all finished, so none is a stalled workflow), and two past morning-summary
-- sends (neither today's, so the schedule's claim for today is free).
INSERT INTO companies (id, company_name, company_number, company_type, company_category_id, classification_id,
                       is_active, create_date, last_activity_date) VALUES
  (190, 'Zz Scope Test Co', 'C-190', 1, 2, 2, true, now() - interval '1 year', now() - interval '1 day')
ON CONFLICT (id) DO NOTHING;

INSERT INTO pipeline_executions (pipeline_id, ticket_id, status, started_at, completed_at, output_data, error)
SELECT 41 + i % 2,
       9000 + i,
       CASE WHEN i % 6 = 5 THEN 'failed' ELSE 'succeeded' END,
       now() - i * interval '47 minutes',
       now() - i * interval '47 minutes' + (800 + i * 1370) * interval '1 millisecond',
       CASE WHEN i % 3 = 0 THEN jsonb_build_object('user_route_fallback', true, 'route', 'user')
            WHEN i % 3 = 1 THEN jsonb_build_object('summary', 'classified', 'nested', jsonb_build_object('user_route_fallback', true))
            ELSE jsonb_build_object('summary', 'classified') END,
       CASE WHEN i % 6 = 5 THEN 'the model answered 429 three times' END
FROM generate_series(12, 1, -1) AS i;

INSERT INTO morning_summary_sends (kind, day, timezone, sections, at, status, title, text, error, results, created_at, finished_at)
VALUES
  ('scheduled', (now() AT TIME ZONE 'UTC')::date - 3, 'UTC', '{overview,slaBreaches}', now() - interval '3 days', 'sent',
   'Morning summary (seed)', E'_Figures at 06:30 UTC._\n*Overview*\nOpened yesterday: 4', NULL,
   '[{"webhookId": 999001, "name": "Service desk space (seed)", "url": "https://chat.googleapis.com/…", "delivered": true, "attempts": 1, "httpStatus": 200, "reason": null}]',
   now() - interval '3 days', now() - interval '3 days' + interval '2 seconds'),
  ('manual', (now() AT TIME ZONE 'UTC')::date - 2, 'UTC', '{overview}', now() - interval '2 days', 'failed',
   'Morning summary (seed)', E'_Figures at 09:10 UTC._', NULL,
   '[{"webhookId": 999001, "name": "Service desk space (seed)", "url": "https://chat.googleapis.com/…", "delivered": false, "attempts": 2, "httpStatus": 500, "reason": "HTTP 500: internal error"}]',
   now() - interval '2 days', now() - interval '2 days' + interval '3 seconds');
