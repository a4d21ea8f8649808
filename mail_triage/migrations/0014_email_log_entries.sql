-- email_log_entries(ids): the entries of several ids at once, for GET /api/v1/log/{entry_id}'s
-- merged reads (core/async/batcher.hpp): each entry's id as text (the form the route's
-- callers give, lower case) and its email_log_json(). An id without an entry has no row.
--
-- A function, for its SET clause: `= ANY($1)` in a prepared statement is planned again at every
-- run while its custom plan looks cheaper than the generic one (which assumes 10 ids), as it
-- always does for a batch of fewer than 10 ids, the usual size: about 170 µs of planning a batch,
-- more than reading its rows. Here the one generic plan (an index scan of email_log_pkey) is kept.
CREATE FUNCTION email_log_entries(ids uuid[]) RETURNS TABLE (id text, entry json)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  RETURN QUERY SELECT e.id::text, email_log_json(e) FROM email_log e WHERE e.id = ANY(ids);
END
$$;
