-- Live tickets counted per company and issue type, kept by statement-level triggers (issue 36).
-- GET /api/analyzer/tickets/list returns an exact total; for the period "all" (its default) with no
-- search, that total is now the sum of a few of these rows instead of a count of every live ticket
-- of the copy, which took about 0.5 s a page at 1M tickets under the morning load (bench/RESULTS.md).
-- A missing company or issue type is kept under -1 (PSA ids are never negative; the route's filters
-- take only ids of 1 and up, and 0 and up).
CREATE TABLE ticket_counts (
  company_key    bigint  NOT NULL,
  issue_type_key integer NOT NULL,
  live           bigint  NOT NULL,
  PRIMARY KEY (company_key, issue_type_key)
);

-- One function for the three triggers: a trigger with transition tables has a single event. Each
-- statement adds what it changed per key in one upsert, so a page of the PSA sync (an INSERT ... ON
-- CONFLICT DO UPDATE, which fires the INSERT and the UPDATE trigger) costs one or two upserts of a
-- few rows, and an update that changes no key, no company and no deletion changes no count.
CREATE FUNCTION ticket_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO ticket_counts AS c (company_key, issue_type_key, live)
    SELECT coalesce(company_id, -1), coalesce(issue_type, -1), count(*)
    FROM after_rows WHERE deleted_at IS NULL GROUP BY 1, 2
    ON CONFLICT (company_key, issue_type_key) DO UPDATE SET live = c.live + excluded.live;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO ticket_counts AS c (company_key, issue_type_key, live)
    SELECT company_key, issue_type_key, sum(delta)
    FROM (SELECT coalesce(company_id, -1) AS company_key, coalesce(issue_type, -1) AS issue_type_key, -1 AS delta
          FROM before_rows WHERE deleted_at IS NULL
          UNION ALL
          SELECT coalesce(company_id, -1), coalesce(issue_type, -1), 1
          FROM after_rows WHERE deleted_at IS NULL) changed
    GROUP BY 1, 2 HAVING sum(delta) <> 0
    ON CONFLICT (company_key, issue_type_key) DO UPDATE SET live = c.live + excluded.live;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO ticket_counts AS c (company_key, issue_type_key, live)
    SELECT coalesce(company_id, -1), coalesce(issue_type, -1), -count(*)
    FROM before_rows WHERE deleted_at IS NULL GROUP BY 1, 2
    ON CONFLICT (company_key, issue_type_key) DO UPDATE SET live = c.live + excluded.live;
  ELSE  -- TRUNCATE
    DELETE FROM ticket_counts;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER ticket_counts_insert AFTER INSERT ON tickets REFERENCING NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ticket_counts_follow();
CREATE TRIGGER ticket_counts_update AFTER UPDATE ON tickets REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ticket_counts_follow();
CREATE TRIGGER ticket_counts_delete AFTER DELETE ON tickets REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ticket_counts_follow();
CREATE TRIGGER ticket_counts_truncate AFTER TRUNCATE ON tickets
  FOR EACH STATEMENT EXECUTE FUNCTION ticket_counts_follow();

-- The tickets already copied (the triggers above hold writers off until this commits).
INSERT INTO ticket_counts (company_key, issue_type_key, live)
SELECT coalesce(company_id, -1), coalesce(issue_type, -1), count(*) FROM tickets WHERE deleted_at IS NULL GROUP BY 1, 2;
