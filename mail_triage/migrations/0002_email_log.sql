-- The processing log: one row per message of a mailbox, whatever became of it.
-- Statuses move pending → processing → completed | failed | skipped (the pipeline issue).
-- Addresses are stored lowercased (CHECKs hold every writer to it), so lookups compare plainly.
CREATE TABLE email_log (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  mailbox             text NOT NULL CHECK (mailbox = lower(mailbox)),
  message_id          text NOT NULL,            -- the platform's immutable message id
  internet_message_id text,                     -- RFC 5322 Message-ID
  sender_address      text NOT NULL CHECK (sender_address = lower(sender_address)),
  sender_name         text,
  sender_type         text NOT NULL DEFAULT 'unknown'
                      CHECK (sender_type IN ('customer', 'vendor', 'whitelist', 'unknown')),
  subject             text NOT NULL DEFAULT '',
  received_at         timestamptz NOT NULL,
  status              text NOT NULL DEFAULT 'pending'
                      CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'skipped')),
  llm_classification  text,
  llm_confidence      double precision CHECK (llm_confidence >= 0 AND llm_confidence <= 1),
  llm_reasoning       text,
  final_action        text,
  error               text,
  run_id              uuid,
  processed_at        timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  -- The same message of the same mailbox can never be logged (or acted on) twice.
  CONSTRAINT email_log_message_once UNIQUE (mailbox, message_id)
);

-- GET /api/v1/log: newest first (received_at, then id), alone or with one equality filter.
CREATE INDEX email_log_newest ON email_log (received_at DESC, id DESC);
CREATE INDEX email_log_status_newest ON email_log (status, received_at DESC, id DESC);
CREATE INDEX email_log_sender_type_newest ON email_log (sender_type, received_at DESC, id DESC);
CREATE INDEX email_log_classification_newest ON email_log (llm_classification, received_at DESC, id DESC);
-- Per-sender history and the sender analysis.
CREATE INDEX email_log_sender ON email_log (sender_address, received_at);
-- q: case-insensitive substring over sender address and subject (ILIKE uses trigram indexes).
CREATE INDEX email_log_sender_trgm ON email_log USING gin (sender_address gin_trgm_ops);
CREATE INDEX email_log_subject_trgm ON email_log USING gin (subject gin_trgm_ops);
