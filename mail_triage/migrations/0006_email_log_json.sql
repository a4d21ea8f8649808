-- One rendering of a log entry for the API, used by the list and the single-entry routes.
-- Timestamps render as ISO 8601 with offset (sessions run in UTC).
CREATE FUNCTION email_log_json(e email_log) RETURNS json
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
    'final_action', e.final_action,
    'error', e.error,
    'run_id', e.run_id,
    'processed_at', e.processed_at,
    'created_at', e.created_at,
    'updated_at', e.updated_at)
$$;
