-- The analyzer's ticket list counts its search's matches (`search`: title or number, ILIKE
-- '%…%'; the spec's "paginated with a total count"), and nothing indexed the two columns: every
-- search read the whole copy (2 s at 1M tickets on the benchmark machine under load, issue 36;
-- past DB_REQUEST_TIMEOUT_MS well before 10M). Trigram indexes let a search of three characters or
-- more read only the tickets that share its trigrams; the mobile list's search (the same two
-- columns) may use them too. A search of one or two characters still reads every ticket.
CREATE INDEX tickets_title_trgm ON tickets USING gin (title gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX tickets_number_trgm ON tickets USING gin (ticket_number gin_trgm_ops) WHERE deleted_at IS NULL;
