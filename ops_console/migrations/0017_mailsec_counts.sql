-- Messages sent and received per internal user and UTC day (issue 20), from the mail-security
-- service's SIEM receipt stream (ops_console/mailsec/counts.hpp); the engagement views (issue 22)
-- read it. Kept 18 months, rolling: a daily job deletes older days.
CREATE TABLE mailsec_message_counts (
  user_email  text NOT NULL,
  day         date NOT NULL,          -- UTC
  sent        integer NOT NULL DEFAULT 0,
  received    integer NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_email, day)
);
CREATE INDEX mailsec_message_counts_day ON mailsec_message_counts (day);
