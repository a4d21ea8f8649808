-- The morning summary (issue 22; README "Morning summary"): its configuration (one row), the chat
-- webhooks it posts to, and the history of every send. The scheduled rows of the history are the
-- claimed days: one per local date (the unique index morning_summary_days), inserted before
-- anything is sent, so however many instances run the schedule, one of them sends a day's summary.

-- One row. The section names and the schedule's times are the service's (morning/settings.hpp);
-- the CHECK repeats the names so that no other value can be stored.
CREATE TABLE morning_summary_config (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  timezone    text NOT NULL DEFAULT 'UTC' CHECK (length(timezone) BETWEEN 1 AND 64),
  sections    text[] NOT NULL DEFAULT '{overview,slaBreaches,integrations,workers,mfa}'
              CHECK (cardinality(sections) >= 1
                     AND sections <@ '{overview,slaBreaches,integrations,workers,mfa}'::text[]),
  enabled     boolean NOT NULL DEFAULT false,
  updated_by  bigint REFERENCES users (id) ON DELETE SET NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO morning_summary_config DEFAULT VALUES;

-- Chat webhooks (Google Chat, Teams): the URL carries the space's key and token, so it is never
-- rendered; url_shown is its scheme and host, as the service masks it (morning/summary.hpp).
CREATE TABLE morning_summary_webhooks (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  url         text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  url_shown   text NOT NULL,
  enabled     boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Every send: scheduled, manual (POST /send) or a test (POST /test), with the message and one
-- result per webhook. `at` is the instant the summary describes (the Clock's); `day` its local
-- date in `timezone`. A row is inserted as 'sending' before anything goes out and finished with
-- the results; a send cut short by a crash stays 'sending' (its day is not sent again).
CREATE TABLE morning_summary_sends (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind          text NOT NULL CHECK (kind IN ('scheduled', 'manual', 'test')),
  day           date NOT NULL,
  timezone      text NOT NULL,
  sections      text[] NOT NULL DEFAULT '{}',   -- what the message contains (none for a test)
  at            timestamptz NOT NULL,
  requested_by  bigint REFERENCES users (id) ON DELETE SET NULL,
  status        text NOT NULL DEFAULT 'sending' CHECK (status IN ('sending', 'sent', 'partial', 'failed')),
  title         text,
  text          text,
  error         text,
  results       jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(results) = 'array'),
  created_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz
);
-- The claim: one scheduled send per local date, whichever instance inserts it first.
CREATE UNIQUE INDEX morning_summary_days ON morning_summary_sends (day) WHERE kind = 'scheduled';

CREATE FUNCTION morning_summary_webhook_json(w morning_summary_webhooks) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('id', w.id, 'name', w.name, 'url', w.url_shown, 'enabled', w.enabled,
                           'createdAt', w.created_at, 'updatedAt', w.updated_at)
$$;

-- The configuration with the schedule's fixed rules, which the caller passes (morning/settings.hpp).
CREATE FUNCTION morning_summary_config_json(c morning_summary_config, send_at text, catch_up_until text,
                                            available text[]) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('timezone', c.timezone, 'sections', to_json(c.sections), 'enabled', c.enabled,
                           'sendAt', send_at, 'weekdaysOnly', true, 'catchUpUntil', catch_up_until,
                           'availableSections', to_json(available), 'updatedAt', c.updated_at)
$$;

CREATE FUNCTION morning_summary_send_json(s morning_summary_sends) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('id', s.id, 'kind', s.kind, 'day', s.day, 'timezone', s.timezone,
                           'sections', to_json(s.sections), 'at', s.at,
                           'requestedBy', s.requested_by, 'status', s.status, 'title', s.title, 'text', s.text,
                           'error', s.error, 'results', s.results, 'createdAt', s.created_at,
                           'finishedAt', s.finished_at)
$$;
