-- Indexes in the order two lists read (issue 36, bench/ops-console-morning over 1,000,000 tickets),
-- so a page walks an index instead of sorting the table:
--   GET /api/mobile/analyzer/feed orders the analyses by coalesce(completed_at, '-infinity') DESC,
--     id DESC (api/mobile.cpp, the keyset's form): without an index of that expression PostgreSQL read
--     every analysis and hashed the whole tickets table for the shown-company check (1.9 s for a first
--     page over 20,000 analyses; 15 ms with it);
--   GET /api/analyzer/tickets/list orders the live tickets by create_date DESC NULLS LAST, id DESC
--     (api/analyzer.cpp): a parallel scan and sort of the copy (465 ms; 0.1 ms with it).
CREATE INDEX analyses_feed_order ON analyses ((coalesce(completed_at, '-infinity'::timestamptz)) DESC, id DESC);
CREATE INDEX tickets_created_order ON tickets (create_date DESC NULLS LAST, id DESC) WHERE deleted_at IS NULL;
