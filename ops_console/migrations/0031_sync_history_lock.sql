-- Issue 37: a sync killed mid-run (kill -9, a lost machine) left its sync_history row 'running'
-- for ever. A run now records the advisory lock it runs under; PostgreSQL releases that lock with
-- the dead session, so the next run to take it knows that every row still 'running' under it was
-- left by an instance that stopped, and closes it as failed (sync_history.hpp, recorded_run).
ALTER TABLE sync_history ADD COLUMN run_lock text;
CREATE INDEX sync_history_running ON sync_history (run_lock) WHERE status = 'running';
