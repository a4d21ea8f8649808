-- Aggregates of email_log kept current by statement-level triggers, so that the totals of
-- GET /api/v1/log and the sender analysis cost the same at a million rows as at ten thousand.
-- Each writing statement adjusts them once (transition tables), in the same transaction, so a
-- reader always sees totals that match the rows. Keys are locked in sorted order: concurrent
-- writers queue on a hot key but never deadlock on each other within one statement.

-- Rows per (status, sender_type, classification); '' stands for "no classification".
CREATE TABLE email_log_counts (
  status         text NOT NULL,
  sender_type    text NOT NULL,
  classification text NOT NULL,
  n              bigint NOT NULL,
  PRIMARY KEY (status, sender_type, classification)
);

-- Per sender: messages logged, first and last received.
CREATE TABLE sender_stats (
  sender_address text PRIMARY KEY,
  message_count  bigint NOT NULL CHECK (message_count > 0),
  first_seen     timestamptz NOT NULL,
  last_seen      timestamptz NOT NULL
);
-- GET /api/v1/analysis/senders: highest volume first, ties by address.
CREATE INDEX sender_stats_volume ON sender_stats (message_count DESC, sender_address);

-- Recomputes the statistics of the given senders from email_log (after deletes and moves).
CREATE FUNCTION refresh_sender_stats(addresses text[]) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM sender_stats s
  WHERE s.sender_address = ANY (addresses)
    AND NOT EXISTS (SELECT 1 FROM email_log e WHERE e.sender_address = s.sender_address);
  INSERT INTO sender_stats AS s (sender_address, message_count, first_seen, last_seen)
  SELECT e.sender_address, count(*), min(e.received_at), max(e.received_at)
  FROM email_log e WHERE e.sender_address = ANY (addresses)
  GROUP BY e.sender_address ORDER BY e.sender_address
  ON CONFLICT (sender_address) DO UPDATE SET
    message_count = EXCLUDED.message_count, first_seen = EXCLUDED.first_seen, last_seen = EXCLUDED.last_seen;
$$;

CREATE FUNCTION email_log_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO email_log_counts AS c (status, sender_type, classification, n)
  SELECT status, sender_type, coalesce(llm_classification, ''), count(*)
  FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (status, sender_type, classification) DO UPDATE SET n = c.n + EXCLUDED.n;

  INSERT INTO sender_stats AS s (sender_address, message_count, first_seen, last_seen)
  SELECT sender_address, count(*), min(received_at), max(received_at)
  FROM new_rows GROUP BY 1 ORDER BY 1
  ON CONFLICT (sender_address) DO UPDATE SET
    message_count = s.message_count + EXCLUDED.message_count,
    first_seen = least(s.first_seen, EXCLUDED.first_seen),
    last_seen = greatest(s.last_seen, EXCLUDED.last_seen);
  RETURN NULL;
END $$;

CREATE FUNCTION email_log_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO email_log_counts AS c (status, sender_type, classification, n)
  SELECT status, sender_type, classification, sum(delta)
  FROM (SELECT status, sender_type, coalesce(llm_classification, '') AS classification, 1 AS delta FROM new_rows
        UNION ALL
        SELECT status, sender_type, coalesce(llm_classification, ''), -1 FROM old_rows) d
  GROUP BY 1, 2, 3 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (status, sender_type, classification) DO UPDATE SET n = c.n + EXCLUDED.n;

  -- Status changes are the common update; only a moved sender or date touches the statistics.
  PERFORM refresh_sender_stats(array_agg(DISTINCT a))
  FROM (SELECT unnest(ARRAY[o.sender_address, n.sender_address]) AS a
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE (o.sender_address, o.received_at) IS DISTINCT FROM (n.sender_address, n.received_at)) moved
  HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION email_log_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO email_log_counts AS c (status, sender_type, classification, n)
  SELECT status, sender_type, coalesce(llm_classification, ''), -count(*)
  FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (status, sender_type, classification) DO UPDATE SET n = c.n + EXCLUDED.n;

  PERFORM refresh_sender_stats(array_agg(DISTINCT sender_address)) FROM old_rows HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION email_log_after_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM email_log_counts;
  DELETE FROM sender_stats;
  RETURN NULL;
END $$;

CREATE TRIGGER email_log_aggregates_insert AFTER INSERT ON email_log
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION email_log_after_insert();
CREATE TRIGGER email_log_aggregates_update AFTER UPDATE ON email_log
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION email_log_after_update();
CREATE TRIGGER email_log_aggregates_delete AFTER DELETE ON email_log
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION email_log_after_delete();
CREATE TRIGGER email_log_aggregates_truncate AFTER TRUNCATE ON email_log
  FOR EACH STATEMENT EXECUTE FUNCTION email_log_after_truncate();

-- Rows logged before this migration.
INSERT INTO email_log_counts (status, sender_type, classification, n)
SELECT status, sender_type, coalesce(llm_classification, ''), count(*) FROM email_log GROUP BY 1, 2, 3;
INSERT INTO sender_stats (sender_address, message_count, first_seen, last_seen)
SELECT sender_address, count(*), min(received_at), max(received_at) FROM email_log GROUP BY 1;
