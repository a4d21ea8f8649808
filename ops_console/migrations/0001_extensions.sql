-- Extensions the schema relies on. pg_trgm backs substring search over synced PSA data
-- (ticket titles, company names). It is a trusted extension: the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
