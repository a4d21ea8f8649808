-- What a processing run records beyond the spec's fields: the model that answered, its token
-- usage, and whether the action was only intended (TRIAGE_DRY_RUN). The allowed actions are
-- those of mail_triage/classifier/policy.hpp.
ALTER TABLE email_log
  ADD COLUMN llm_model text,
  ADD COLUMN llm_prompt_tokens integer CHECK (llm_prompt_tokens >= 0),
  ADD COLUMN llm_completion_tokens integer CHECK (llm_completion_tokens >= 0),
  ADD COLUMN dry_run boolean NOT NULL DEFAULT false,
  ADD CONSTRAINT email_log_final_action
    CHECK (final_action IN ('keep', 'mark_read', 'archive', 'junk', 'delete', 'review'));

CREATE OR REPLACE FUNCTION email_log_json(e email_log) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', e.id,
    'sender_address', e.sender_address,
    'sender_name', e.sender_name,
    'sender_type', e.sender_type,
    'subject', e.subject,
    'mailbox', e.mailbox,
    'message_id', e.message_id,
    'internet_message_id', e.internet_message_id,
    'received_at', e.received_at,
    'status', e.status,
    'llm_classification', e.llm_classification,
    'llm_confidence', e.llm_confidence,
    'llm_reasoning', e.llm_reasoning,
    'llm_model', e.llm_model,
    'llm_prompt_tokens', e.llm_prompt_tokens,
    'llm_completion_tokens', e.llm_completion_tokens,
    'final_action', e.final_action,
    'dry_run', e.dry_run,
    'error', e.error,
    'run_id', e.run_id,
    'processed_at', e.processed_at,
    'created_at', e.created_at,
    'updated_at', e.updated_at)
$$;

-- Who a sender is, in the order of issue 4: an active, unexpired whitelist entry for the address
-- or its domain; a known customer; a known vendor; the active sender profile's type; unknown.
CREATE FUNCTION sender_type_of(address text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN EXISTS (SELECT 1 FROM whitelist w
                 WHERE w.is_active AND (w.expires_at IS NULL OR w.expires_at > now())
                   AND (w.email_address = lower(address) OR w.domain = split_part(lower(address), '@', 2)))
      THEN 'whitelist'
    WHEN EXISTS (SELECT 1 FROM customers c
                 WHERE c.email_address = lower(address) OR c.domain = split_part(lower(address), '@', 2))
      THEN 'customer'
    WHEN EXISTS (SELECT 1 FROM vendors v
                 WHERE v.email_address = lower(address) OR v.domain = split_part(lower(address), '@', 2))
      THEN 'vendor'
    ELSE coalesce((SELECT p.sender_type FROM sender_profiles p
                   WHERE p.email_address = lower(address) AND p.is_active), 'unknown')
  END
$$;
