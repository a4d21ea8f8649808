-- email_log_json(entry), the same object as migration 0010's, built by row_to_json over a row of
-- a named type instead of json_build_object: the fields' types and output functions are looked up
-- once per row rather than once per field, and the text is written without the spaces around each
-- colon. About a third less of the database's time per entry (200,000 entries: 0.67-0.69 s
-- against 0.93-1.20 s); the expression is still inlined into the calling query. A field added to
-- the log entry is added to the type and to the row, in the same order.
CREATE TYPE email_log_entry AS (
  id uuid,
  sender_address text,
  sender_name text,
  sender_type text,
  subject text,
  mailbox text,
  message_id text,
  internet_message_id text,
  received_at timestamptz,
  status text,
  llm_classification text,
  llm_confidence double precision,
  llm_reasoning text,
  llm_model text,
  llm_prompt_tokens integer,
  llm_completion_tokens integer,
  final_action text,
  dry_run boolean,
  error text,
  run_id uuid,
  processed_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz
);

CREATE OR REPLACE FUNCTION email_log_json(e email_log) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT row_to_json(ROW(
    e.id, e.sender_address, e.sender_name, e.sender_type, e.subject, e.mailbox, e.message_id,
    e.internet_message_id, e.received_at, e.status, e.llm_classification, e.llm_confidence,
    e.llm_reasoning, e.llm_model, e.llm_prompt_tokens, e.llm_completion_tokens, e.final_action,
    e.dry_run, e.error, e.run_id, e.processed_at, e.created_at, e.updated_at)::email_log_entry)
$$;
