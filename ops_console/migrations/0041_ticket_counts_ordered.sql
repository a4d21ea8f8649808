-- ticket_counts_follow() (0037) upserted its keys in the order its hash aggregate gave them. Two
-- statements that change the same keys (the webhook intake's groups, a second instance's, the PSA
-- sync's pages) could then take them in opposite orders and deadlock, which the intake retried
-- and any other writer would see as an error. Each upsert now takes its keys in order, as
-- open_ticket_counts_follow() (0038) already does: a statement waits for the first key it needs,
-- holding none after it. The triggers keep calling the function by its name, so replacing it is
-- enough; what it counts is unchanged.
CREATE OR REPLACE FUNCTION ticket_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO ticket_counts AS c (company_key, issue_type_key, live)
    SELECT coalesce(company_id, -1), coalesce(issue_type, -1), count(*)
    FROM after_rows WHERE deleted_at IS NULL GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (company_key, issue_type_key) DO UPDATE SET live = c.live + excluded.live;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO ticket_counts AS c (company_key, issue_type_key, live)
    SELECT company_key, issue_type_key, sum(delta)
    FROM (SELECT coalesce(company_id, -1) AS company_key, coalesce(issue_type, -1) AS issue_type_key, -1 AS delta
          FROM before_rows WHERE deleted_at IS NULL
          UNION ALL
          SELECT coalesce(company_id, -1), coalesce(issue_type, -1), 1
          FROM after_rows WHERE deleted_at IS NULL) changed
    GROUP BY 1, 2 HAVING sum(delta) <> 0 ORDER BY 1, 2
    ON CONFLICT (company_key, issue_type_key) DO UPDATE SET live = c.live + excluded.live;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO ticket_counts AS c (company_key, issue_type_key, live)
    SELECT coalesce(company_id, -1), coalesce(issue_type, -1), -count(*)
    FROM before_rows WHERE deleted_at IS NULL GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (company_key, issue_type_key) DO UPDATE SET live = c.live + excluded.live;
  ELSE  -- TRUNCATE
    DELETE FROM ticket_counts;
  END IF;
  RETURN NULL;
END $$;
