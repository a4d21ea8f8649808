-- What the analyzer pages show (tests/browser/analyzer_*.test.mjs), beside 10-psa.sql's tickets and
-- 20-mobile.sql's analyses: the PSA's issue types (the ticket list's filter, a report's
-- distribution) on the seed's tickets, and one finished analysis as a worker with a model would
-- have stored it (the browser tests' ops-console has no model, so none can finish there): its
-- pipeline run with its three stages, its job, next steps, references, review reasons and traces.
-- Times are relative to now() and outside today's UTC day, so the daily cost total is untouched.
INSERT INTO psa_picklists (entity, field, value, label, sort_order) VALUES
  ('Tickets', 'issueType', 11, 'Hardware', 1), ('Tickets', 'issueType', 12, 'Network', 2),
  ('Tickets', 'issueType', 13, 'Accounts', 3)
ON CONFLICT DO NOTHING;
UPDATE tickets SET issue_type = 11 + id % 3 WHERE id BETWEEN 9001 AND 9090 AND issue_type IS NULL;

WITH run AS (
  INSERT INTO pipeline_executions (pipeline_id, ticket_id, status, started_at, completed_at, cost, output_data)
  VALUES (1, 9050, 'succeeded', now() - interval '2 days', now() - interval '2 days' + interval '9 seconds', 0.000987,
          jsonb_build_object('costTotal', 0.000987, 'stages', jsonb_build_array(
            jsonb_build_object('name', 'gather', 'status', 'succeeded', 'startedAt', now() - interval '2 days',
                               'durationMs', 14, 'promptTokens', 0, 'completionTokens', 0, 'cost', 0, 'error', NULL),
            jsonb_build_object('name', 'classify', 'status', 'succeeded',
                               'startedAt', now() - interval '2 days' + interval '15 milliseconds', 'durationMs', 3812,
                               'promptTokens', 1840, 'completionTokens', 212, 'cost', 0.0004032, 'model', 'gpt-test',
                               'error', NULL),
            jsonb_build_object('name', 'summarise', 'status', 'succeeded',
                               'startedAt', now() - interval '2 days' + interval '3.9 seconds', 'durationMs', 5107,
                               'promptTokens', 2105, 'completionTokens', 449, 'cost', 0.0005852, 'model', 'gpt-test',
                               'error', NULL))))
  RETURNING id
), job AS (
  INSERT INTO analysis_jobs (ticket_id, status, attempts, created_at, started_at, finished_at)
  VALUES (9050, 'succeeded', 1, now() - interval '2 days' - interval '2 seconds', now() - interval '2 days',
          now() - interval '2 days' + interval '9 seconds')
  RETURNING id
), analysis AS (
  INSERT INTO analyses (ticket_id, job_id, execution_id, status, model, category, urgency, sentiment, confidence, summary,
                        next_steps, needs_review, review_reasons, documentation_refs, traces, prompt_tokens,
                        completion_tokens, cost, created_at, completed_at)
  SELECT 9050, job.id, run.id, 'succeeded', 'gpt-test', 'Network', 'high', 'frustrated', 0.46,
         'The site-to-site tunnel drops hourly because the two ends disagree on the phase-2 lifetime; aligning them stops the drops.',
         '["Compare the phase-2 lifetimes on both firewalls", "Set both to 3600 s", "Watch the tunnel for two hours"]',
         true, '["Confidence is under 0.5", "The customer mentions a contract penalty"]',
         '["Vendor KB: IPsec phase-2 lifetime mismatch", "Runbook: site-to-site VPN changes"]',
         jsonb_build_array(
           jsonb_build_object('stage', 'classify', 'model', 'gpt-test', 'system', 'Classify the ticket (instructions as sent).',
                              'reply', '{"category":"Network","urgency":"high"}', 'error', NULL),
           jsonb_build_object('stage', 'summarise', 'model', 'gpt-test', 'system', 'Summarise the ticket (instructions as sent).',
                              'reply', '{"summary":"The tunnel drops hourly."}', 'error', NULL)),
         3945, 661, 0.000987, now() - interval '2 days', now() - interval '2 days' + interval '9 seconds'
  FROM run, job
  RETURNING id
)
SELECT count(*) FROM analysis;
-- (a statement's CTEs share one snapshot: the job is given its analysis in a second statement)
UPDATE analysis_jobs j SET analysis_id = a.id FROM analyses a
WHERE a.job_id = j.id AND j.ticket_id = 9050 AND j.analysis_id IS NULL;
