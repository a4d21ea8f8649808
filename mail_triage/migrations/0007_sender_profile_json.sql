-- One rendering of a sender profile for the API (is_active is the spec's unnamed active flag).
CREATE FUNCTION sender_profile_json(p sender_profiles) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', p.id,
    'email_address', p.email_address,
    'display_name', p.display_name,
    'sender_type', p.sender_type,
    'email_types', p.email_types,
    'processing_instructions', p.processing_instructions,
    'notes', p.notes,
    'is_active', p.is_active,
    'created_at', p.created_at,
    'updated_at', p.updated_at)
$$;
