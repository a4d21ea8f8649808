-- The ticket analyzer (issue 21; spec "Ticket analyzer"): jobs taken by the service's workers,
-- the analyses they store, the cost gate's audit, shares and aggregate reports. The pipeline runs
-- themselves are pipeline_executions rows (0005), with their stages in output_data.stages and their
-- spend in the new cost column, which the daily cost guard sums.

ALTER TABLE pipeline_executions ADD COLUMN cost numeric(14, 6) NOT NULL DEFAULT 0;

-- The calendar periods of the analyzer (and of the dashboards) in a user's zone: [lower, upper).
-- `at` is the current instant, converted to the zone once (`at AT TIME ZONE tz` is local time);
-- the local midnight converted back gives the instant the day starts. '30d' and '60d' are rolling
-- windows from `at`; 'all' is unbounded. An unknown period raises.
CREATE FUNCTION calendar_period(period text, tz text, at timestamptz) RETURNS tstzrange
LANGUAGE sql STABLE AS $$
  SELECT CASE period
    WHEN 'today' THEN tstzrange(date_trunc('day', at AT TIME ZONE tz) AT TIME ZONE tz,
                                (date_trunc('day', at AT TIME ZONE tz) + interval '1 day') AT TIME ZONE tz)
    WHEN 'yesterday' THEN tstzrange((date_trunc('day', at AT TIME ZONE tz) - interval '1 day') AT TIME ZONE tz,
                                    date_trunc('day', at AT TIME ZONE tz) AT TIME ZONE tz)
    WHEN 'this week' THEN tstzrange(date_trunc('week', at AT TIME ZONE tz) AT TIME ZONE tz,
                                    (date_trunc('week', at AT TIME ZONE tz) + interval '1 week') AT TIME ZONE tz)
    WHEN 'last week' THEN tstzrange((date_trunc('week', at AT TIME ZONE tz) - interval '1 week') AT TIME ZONE tz,
                                    date_trunc('week', at AT TIME ZONE tz) AT TIME ZONE tz)
    WHEN '30d' THEN tstzrange(at - interval '30 days', NULL)
    WHEN '60d' THEN tstzrange(at - interval '60 days', NULL)
    WHEN 'all' THEN tstzrange(NULL, NULL)
  END
$$;

-- A ticket picklist's active values, [{value, label}] in the PSA's order: the analyzer's filter
-- options (picklists have no soft delete; is_active is the only filter).
CREATE FUNCTION ticket_picklist_json(picklist_field text) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(json_build_object('value', value, 'label', label) ORDER BY sort_order, value), '[]'::json)
  FROM psa_picklists WHERE entity = 'Tickets' AND field = picklist_field AND is_active
$$;

-- One analysis asked for. A worker takes a job with FOR UPDATE SKIP LOCKED and holds it by a lease
-- (lease_owner, lease_until) that it renews while the job runs; a job whose lease ran out (its
-- worker died) is taken again. At most one job per ticket waits and one runs (the two unique
-- indexes), so no ticket is analysed twice at once and a second request joins the waiting job.
CREATE TABLE analysis_jobs (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ticket_id     bigint NOT NULL,
  requested_by  bigint REFERENCES users (id) ON DELETE SET NULL,
  route         text,                 -- a name of ANALYZER_ROUTES; NULL: the default model
  status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  estimate      numeric(14, 6) NOT NULL DEFAULT 0,
  attempts      integer NOT NULL DEFAULT 0,
  lease_owner   text,
  lease_until   timestamptz,
  analysis_id   bigint,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  finished_at   timestamptz
);
CREATE UNIQUE INDEX analysis_jobs_one_waiting ON analysis_jobs (ticket_id) WHERE status = 'queued';
CREATE UNIQUE INDEX analysis_jobs_one_running ON analysis_jobs (ticket_id) WHERE status = 'running';
CREATE INDEX analysis_jobs_open ON analysis_jobs (id) WHERE status IN ('queued', 'running');
CREATE INDEX analysis_jobs_ticket ON analysis_jobs (ticket_id, id DESC);

-- What an analysis found. result holds the model's validated replies; traces (prompts and
-- replies), documentation_refs and review_reasons stay here: no list or feed renders them.
CREATE TABLE analyses (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ticket_id           bigint NOT NULL,
  job_id              bigint REFERENCES analysis_jobs (id) ON DELETE SET NULL,
  execution_id        bigint,
  requested_by        bigint REFERENCES users (id) ON DELETE SET NULL,
  status              text NOT NULL CHECK (status IN ('succeeded', 'failed')),
  model               text,
  category            text,
  urgency             text,
  sentiment           text,
  confidence          numeric(4, 3),
  summary             text,
  next_steps          jsonb NOT NULL DEFAULT '[]',
  needs_review        boolean NOT NULL DEFAULT false,
  review_reasons      jsonb NOT NULL DEFAULT '[]',
  documentation_refs  jsonb NOT NULL DEFAULT '[]',
  traces              jsonb NOT NULL DEFAULT '[]',
  result              jsonb,
  prompt_tokens       integer NOT NULL DEFAULT 0,
  completion_tokens   integer NOT NULL DEFAULT 0,
  cost                numeric(14, 6) NOT NULL DEFAULT 0,
  error               text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  completed_at        timestamptz
);
CREATE INDEX analyses_ticket ON analyses (ticket_id, completed_at DESC NULLS LAST, id DESC);
CREATE INDEX analyses_recent ON analyses (completed_at DESC NULLS LAST, id DESC);

-- The feed row: the twelve whitelisted fields that leave the service (README "Ticket analyzer").
-- Every list, feed and share renders an analysis through this function and nothing else.
CREATE FUNCTION analysis_feed_json(a analyses) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', a.id, 'ticketId', a.ticket_id, 'ticketNumber', t.ticket_number, 'ticketTitle', t.title,
    'companyId', t.company_id, 'companyName', c.company_name, 'status', a.status, 'category', a.category,
    'urgency', a.urgency, 'summary', a.summary, 'needsReview', a.needs_review, 'completedAt', a.completed_at)
  FROM (SELECT 1) one
  LEFT JOIN tickets t ON t.id = a.ticket_id
  LEFT JOIN companies c ON c.id = t.company_id
$$;

-- Every decision of the cost gate, allowed or not.
CREATE TABLE analyzer_cost_decisions (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     bigint REFERENCES users (id) ON DELETE SET NULL,
  user_email  text NOT NULL,
  action      text NOT NULL CHECK (action IN ('analyze', 'report')),
  estimate    numeric(14, 6) NOT NULL,
  day_total   numeric(14, 6) NOT NULL,
  decision    text NOT NULL CHECK (decision IN ('allowed', 'warned', 'confirmation_required', 'confirmed',
                                                'blocked', 'overridden')),
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX analyzer_cost_decisions_recent ON analyzer_cost_decisions (created_at DESC, id DESC);

-- A share: stored before the e-mail is sent, then completed with the outcome.
CREATE TABLE analysis_shares (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  analysis_id  bigint NOT NULL REFERENCES analyses (id) ON DELETE CASCADE,
  shared_by    bigint REFERENCES users (id) ON DELETE SET NULL,
  recipients   text[] NOT NULL,
  message      text,
  email_sent   boolean,              -- NULL until the send has been tried
  email_error  text,
  created_at   timestamptz NOT NULL DEFAULT now()
);

-- An aggregate report: distributions stored when it is asked for, the narrative added later.
CREATE TABLE analyzer_reports (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  requested_by   bigint REFERENCES users (id) ON DELETE SET NULL,
  period         text NOT NULL,
  company_id     bigint,
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  distributions  jsonb NOT NULL,
  narrative      text,
  error          text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  completed_at   timestamptz
);

CREATE FUNCTION analyzer_report_json(r analyzer_reports) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object('id', r.id, 'period', r.period, 'companyId', r.company_id, 'status', r.status,
                           'distributions', r.distributions, 'narrative', r.narrative, 'error', r.error,
                           'createdAt', r.created_at, 'completedAt', r.completed_at)
$$;
