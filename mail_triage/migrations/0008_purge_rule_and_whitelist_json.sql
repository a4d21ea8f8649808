-- One rendering of a purge rule and of a whitelist entry for the API.
CREATE FUNCTION purge_rule_json(r purge_rules) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', r.id,
    'email_address', r.email_address,
    'display_name', r.display_name,
    'older_than_days', r.older_than_days,
    'notes', r.notes,
    'is_active', r.is_active,
    'created_at', r.created_at,
    'updated_at', r.updated_at)
$$;

-- `expired` is derived: an active entry whose expires_at has passed no longer whitelists.
CREATE FUNCTION whitelist_entry_json(w whitelist) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', w.id,
    'email_address', w.email_address,
    'domain', w.domain,
    'description', w.description,
    'added_by', w.added_by,
    'expires_at', w.expires_at,
    'expired', coalesce(w.expires_at <= now(), false),
    'is_active', w.is_active,
    'created_at', w.created_at,
    'updated_at', w.updated_at)
$$;
