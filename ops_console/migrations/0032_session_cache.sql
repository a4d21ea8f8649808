-- The session cache (issue 36; ops_console/identity/identity.hpp, core/auth/session_cache.hpp).
-- Every instance keeps the live sessions it has seen, with their user and permissions; these
-- triggers announce on the channel `session_changes` every change that alters what a session check
-- answers, from the changing statement's own transaction, so no code path (nor an operator's SQL)
-- can forget it. Each instance drops what a payload names:
--   session:<token_hash>  a session ended (sign-out, sweep, a user's deletion) or changed, other
--                         than its last-seen time moving forward (the check's own refresh);
--   subject:<user id>     a user changed or was deleted, or their permissions changed;
--   all                   one of the three tables was truncated.
CREATE FUNCTION announce_session_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    PERFORM pg_notify('session_changes', 'all');
  ELSIF TG_TABLE_NAME = 'sessions' THEN
    PERFORM pg_notify('session_changes', 'session:' || OLD.token_hash);
  ELSIF TG_TABLE_NAME = 'users' THEN
    PERFORM pg_notify('session_changes', 'subject:' || OLD.id);
  ELSE  -- user_permissions
    IF TG_OP <> 'INSERT' THEN
      PERFORM pg_notify('session_changes', 'subject:' || OLD.user_id);
    END IF;
    IF TG_OP <> 'DELETE' THEN
      PERFORM pg_notify('session_changes', 'subject:' || NEW.user_id);
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER sessions_ended AFTER DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION announce_session_change();
CREATE TRIGGER sessions_changed AFTER UPDATE ON sessions
  FOR EACH ROW WHEN (NEW.token_hash IS DISTINCT FROM OLD.token_hash OR NEW.user_id IS DISTINCT FROM OLD.user_id
                     OR NEW.expires_at IS DISTINCT FROM OLD.expires_at OR NEW.last_seen_at < OLD.last_seen_at)
  EXECUTE FUNCTION announce_session_change();
CREATE TRIGGER users_changed AFTER UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION announce_session_change();
CREATE TRIGGER user_permissions_changed AFTER INSERT OR UPDATE OR DELETE ON user_permissions
  FOR EACH ROW EXECUTE FUNCTION announce_session_change();
CREATE TRIGGER sessions_truncated AFTER TRUNCATE ON sessions
  FOR EACH STATEMENT EXECUTE FUNCTION announce_session_change();
CREATE TRIGGER users_truncated AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION announce_session_change();
CREATE TRIGGER user_permissions_truncated AFTER TRUNCATE ON user_permissions
  FOR EACH STATEMENT EXECUTE FUNCTION announce_session_change();
