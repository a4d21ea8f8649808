-- Engagement (issue 22; spec "Dashboards and status", the engagement rule, day-boundary rule 5):
-- the mail platform's usage reports and the functions the engagement views share. Every day here
-- is a UTC date.

-- Per user and UTC day: e-mails sent, received and read as the mail platform's e-mail activity
-- report counts them (Graph getEmailActivityUserDetail(date=...), 48 to 72 hours late; pulled by
-- ops_console/engagement/usage_pull.cpp). The fallback for days the mail-security counts
-- (mailsec_message_counts, migration 0017) do not cover.
CREATE TABLE mailplatform_usage_days (
  user_email           text NOT NULL,          -- the user principal name, lowercased
  day                  date NOT NULL,          -- UTC, the report's date
  display_name         text,
  sent                 integer NOT NULL DEFAULT 0,
  received             integer NOT NULL DEFAULT 0,
  read                 integer NOT NULL DEFAULT 0,
  report_refresh_date  date,                   -- how far the report's data reached when pulled
  pulled_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_email, day)
);
CREATE INDEX mailplatform_usage_days_day ON mailplatform_usage_days (day);

-- Each day's last pull: final once the report's refresh date had reached the day (it is not
-- asked again); a day not processed yet comes back without rows and stays not final.
CREATE TABLE mailplatform_usage_reports (
  day                  date PRIMARY KEY,
  report_refresh_date  date,
  users                integer NOT NULL,
  final                boolean NOT NULL,
  pulled_at            timestamptz NOT NULL DEFAULT now()
);

-- PSA resources by address, for matching a user's time entries.
CREATE INDEX resources_email ON resources (lower(email));

-- Per user (a lowercased address) and UTC day from `from_day` to `to_day`: e-mails sent and
-- received, PSA hours, and where the e-mail figures came from. The preference rule: a day that has
-- any mail-security count takes every user's figures of that day from them ('mailsec'); any other
-- day from the mail platform's usage report ('mailplatform'); `source` is NULL on a row with PSA
-- hours alone. PSA hours: time entries not deleted, of the resources whose e-mail is the user's
-- (any case), on the UTC date of coalesce(start_date_time, date_worked).
CREATE FUNCTION engagement_user_days(from_day date, to_day date)
RETURNS TABLE (user_email text, day date, sent bigint, received bigint, psa_hours numeric, source text)
LANGUAGE sql STABLE AS $$
  WITH mailsec AS (
    SELECT lower(c.user_email) AS user_email, c.day, sum(c.sent) AS sent, sum(c.received) AS received
    FROM mailsec_message_counts c
    WHERE c.day BETWEEN from_day AND to_day
    GROUP BY 1, 2
  ), mail AS (
    SELECT m.user_email, m.day, m.sent, m.received, 'mailsec' AS source FROM mailsec m
    UNION ALL
    SELECT u.user_email, u.day, u.sent, u.received, 'mailplatform'
    FROM mailplatform_usage_days u
    WHERE u.day BETWEEN from_day AND to_day AND NOT EXISTS (SELECT 1 FROM mailsec m WHERE m.day = u.day)
  ), psa AS (
    SELECT lower(r.email) AS user_email,
           (coalesce(t.start_date_time, t.date_worked) AT TIME ZONE 'UTC')::date AS day,
           sum(t.hours_worked) AS hours
    FROM time_entries t JOIN resources r ON r.id = t.resource_id
    WHERE t.deleted_at IS NULL AND coalesce(r.email, '') <> ''
      AND coalesce(t.start_date_time, t.date_worked) >= from_day::timestamp AT TIME ZONE 'UTC'
      AND coalesce(t.start_date_time, t.date_worked) < (to_day + 1)::timestamp AT TIME ZONE 'UTC'
    GROUP BY 1, 2
  )
  SELECT coalesce(m.user_email, p.user_email), coalesce(m.day, p.day), coalesce(m.sent, 0)::bigint,
         coalesce(m.received, 0)::bigint, coalesce(p.hours, 0), m.source
  FROM mail m FULL JOIN psa p ON p.user_email = m.user_email AND p.day = m.day
$$;

-- A user's name where one is known: the console user's, else the PSA resource's, else the usage
-- report's display name (the latest); NULL otherwise.
CREATE FUNCTION engagement_user_name(email text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT nullif(u.name, '') FROM users u WHERE lower(u.email) = lower($1) LIMIT 1),
    (SELECT nullif(trim(concat_ws(' ', r.first_name, r.last_name)), '') FROM resources r
     WHERE lower(r.email) = lower($1) ORDER BY r.deleted_at IS NOT NULL, r.id LIMIT 1),
    (SELECT d.display_name FROM mailplatform_usage_days d
     WHERE d.user_email = lower($1) AND d.display_name IS NOT NULL ORDER BY d.day DESC LIMIT 1))
$$;

-- Whether anything is known about the address: a mail-security count, a usage-report row, a PSA
-- resource or a console user.
CREATE FUNCTION engagement_user_known(email text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM mailsec_message_counts c WHERE c.user_email = lower($1))  -- stored lowercased
      OR EXISTS (SELECT 1 FROM mailplatform_usage_days d WHERE d.user_email = lower($1))
      OR EXISTS (SELECT 1 FROM resources r WHERE lower(r.email) = lower($1))
      OR EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower($1))
$$;
