-- Sender profiles give the model context about known senders. Never hard-deleted: DELETE
-- deactivates (is_active is the spec's unnamed active flag). Keyed by address for upserts.
CREATE TABLE sender_profiles (
  id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email_address           text NOT NULL UNIQUE CHECK (email_address = lower(email_address)),
  display_name            text NOT NULL DEFAULT '',
  sender_type             text NOT NULL
                          CHECK (sender_type IN ('customer', 'vendor', 'whitelist', 'unknown')),
  email_types             text[] NOT NULL DEFAULT '{}',
  processing_instructions text NOT NULL DEFAULT '',
  notes                   text,
  is_active               boolean NOT NULL DEFAULT true,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);

-- Purge rules name senders whose mail is deleted after a retention period. One rule per
-- address: POST creates it or reactivates and updates it.
CREATE TABLE purge_rules (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email_address   text NOT NULL UNIQUE CHECK (email_address = lower(email_address)),
  display_name    text NOT NULL DEFAULT '',
  older_than_days integer NOT NULL CHECK (older_than_days BETWEEN 1 AND 3650),
  notes           text,
  is_active       boolean NOT NULL DEFAULT true,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX purge_rules_active ON purge_rules (email_address) WHERE is_active;
