-- Mail security (issue 20): the audit of every mailbox remediation that moves or deletes mail
-- (who, which mailbox, which messages, what happened to each). Written before the first message
-- is touched and completed after the last.
CREATE TABLE mailsec_remediations (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id      bigint REFERENCES users (id) ON DELETE SET NULL,
  user_email   text NOT NULL,
  mailbox      text NOT NULL,
  action       text NOT NULL CHECK (action IN ('move', 'delete')),
  message_ids  text[] NOT NULL,
  results      jsonb,              -- [{id, ok, error}] once done; NULL while under way or if it stopped
  created_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX mailsec_remediations_mailbox ON mailsec_remediations (mailbox, created_at DESC);
