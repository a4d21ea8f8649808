-- The oldest backup of an asset that Datto listed as still under way at the last run (issue 33).
-- A run sends the database only the backups listed after the newest one the copy holds of their
-- asset; a backup that was under way while a newer one finished would be older than that mark by
-- the time it finishes, and never stored. The mark is now the earlier of the two (ops_console/
-- backup/sync.cpp, kBackupWatermarks), so such a backup is sent again once it has an outcome.
ALTER TABLE backup_assets ADD COLUMN oldest_pending_backup_at timestamptz;
