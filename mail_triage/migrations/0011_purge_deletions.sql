-- The audit of POST /api/v1/purge/execute in mode `execute`: one row per message the purge set
-- out to delete. The row is written `pending` before the platform is asked, then becomes
-- `deleted` (with deleted_at) or `failed` (with the platform's error), so a crash between the
-- two steps leaves a pending row rather than a deletion nobody recorded.
CREATE TABLE purge_deletions (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id           uuid NOT NULL,              -- one execute request
  mailbox          text NOT NULL CHECK (mailbox = lower(mailbox)),
  message_id       text NOT NULL,              -- the platform's immutable message id
  sender_address   text NOT NULL CHECK (sender_address = lower(sender_address)),
  subject          text NOT NULL DEFAULT '',
  received_at      timestamptz NOT NULL,
  older_than_days  integer NOT NULL CHECK (older_than_days BETWEEN 1 AND 3650),
  purge_rule_id    uuid REFERENCES purge_rules (id) ON DELETE SET NULL,  -- NULL: a one-off sender purge
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'deleted', 'failed')),
  error            text,
  requested_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at       timestamptz,
  CHECK ((status = 'deleted') = (deleted_at IS NOT NULL)),
  UNIQUE (run_id, mailbox, message_id)  -- also serves the per-message updates of a run
);
CREATE INDEX purge_deletions_sender ON purge_deletions (sender_address, requested_at DESC);
