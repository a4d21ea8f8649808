-- Extensions the schema relies on. pg_trgm backs the case-insensitive substring search of the
-- processing log (GET /api/v1/log?q=). It is a trusted extension: the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
