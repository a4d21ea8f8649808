-- Backup (issue 33, item 1; Datto BCDR, vendors.md "Backup: Datto BCDR"): the appliances with the
-- client name each carries, the machines and shares they protect (assets) with their last backup,
-- last good backup, screenshot verification and offsite sync, and each backup Datto reports, as a
-- row of backup_results (migration 0020), which the mobile dashboard's backupSuccess and
-- needsAttention read. A device's client name is matched to a PSA company by its normalised name
-- (distributor_normalised_name(), migration 0012); an administrator maps the names that do not match.
CREATE TABLE backup_devices (
  serial_number  text PRIMARY KEY,
  name           text NOT NULL,
  model          text,
  client_name    text,
  last_seen_at   timestamptz,
  hidden         boolean NOT NULL DEFAULT false,
  agent_count    integer,
  share_count    integer,
  alert_count    integer,
  company_id     bigint REFERENCES companies (id) ON DELETE SET NULL,   -- backup_company_of(client_name)
  synced_at      timestamptz NOT NULL DEFAULT now(),
  deleted_at     timestamptz            -- the last sync no longer saw it
);

-- A client name (as the devices carry it, matched case-insensitively) mapped to a PSA company by an
-- administrator; it wins over the name match.
CREATE TABLE backup_company_mappings (
  client_name  text PRIMARY KEY CHECK (client_name = lower(client_name)),
  company_id   bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  mapped_by    bigint REFERENCES users (id) ON DELETE SET NULL,
  mapped_at    timestamptz NOT NULL DEFAULT now()
);

-- The PSA company of a client name: the administrator's mapping, else the one company whose
-- normalised name is the same (none when several are).
CREATE FUNCTION backup_company_of(client_name text) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT m.company_id FROM backup_company_mappings m WHERE m.client_name = lower(backup_company_of.client_name)),
    (SELECT min(c.id) FROM companies c
     WHERE c.deleted_at IS NULL AND c.normalised_name = distributor_normalised_name(backup_company_of.client_name)
     HAVING count(*) = 1))
$$;

CREATE TABLE backup_assets (
  device_serial            text NOT NULL REFERENCES backup_devices (serial_number) ON DELETE CASCADE,
  asset_key                text NOT NULL,     -- the agent's volume id, else the share's name
  name                     text NOT NULL,
  kind                     text NOT NULL CHECK (kind IN ('agent', 'share')),
  os                       text,
  fqdn                     text,
  local_ip                 text,
  agent_version            text,
  is_paused                boolean NOT NULL DEFAULT false,
  is_archived              boolean NOT NULL DEFAULT false,
  last_snapshot_at         timestamptz,
  latest_offsite_at        timestamptz,
  last_screenshot_at       timestamptz,
  last_screenshot_ok       boolean,
  last_backup_at           timestamptz,
  last_backup_status       text,             -- 'succeeded' | 'failed'
  last_backup_error        text,
  last_good_backup_at      timestamptz,
  synced_at                timestamptz NOT NULL DEFAULT now(),
  deleted_at               timestamptz,
  PRIMARY KEY (device_serial, asset_key)
);

-- One row per backup Datto reported: a later sync of the same backup changes nothing.
ALTER TABLE backup_results ADD COLUMN source_key text, ADD COLUMN device_serial text;
CREATE UNIQUE INDEX backup_results_source ON backup_results (source_key);
CREATE INDEX backup_results_device ON backup_results (device_serial);
CREATE INDEX backup_results_company ON backup_results (company_id, finished_at);

-- A protected machine or share with its backup state:
-- {deviceSerial, deviceName, name, kind, os, lastBackupAt, lastBackupStatus, lastBackupError,
--  lastGoodBackupAt, lastSnapshotAt, latestOffsiteAt, screenshot: {at, ok}, paused, archived}.
CREATE FUNCTION backup_asset_json(a backup_assets, device_name text) RETURNS json
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'deviceSerial', a.device_serial, 'deviceName', device_name, 'name', a.name, 'kind', a.kind, 'os', a.os,
    'lastBackupAt', a.last_backup_at, 'lastBackupStatus', a.last_backup_status, 'lastBackupError', a.last_backup_error,
    'lastGoodBackupAt', a.last_good_backup_at, 'lastSnapshotAt', a.last_snapshot_at,
    'latestOffsiteAt', a.latest_offsite_at,
    'screenshot', json_build_object('at', a.last_screenshot_at, 'ok', a.last_screenshot_ok),
    'paused', a.is_paused, 'archived', a.is_archived)
$$;

-- Each device's company again (after a sync or a mapping change), and its backups' with it.
-- Answers the devices that now have no company.
CREATE FUNCTION backup_rematch() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  UPDATE backup_devices d SET company_id = backup_company_of(d.client_name)
  WHERE d.company_id IS DISTINCT FROM backup_company_of(d.client_name);
  UPDATE backup_results r SET company_id = d.company_id FROM backup_devices d
  WHERE r.device_serial = d.serial_number AND r.company_id IS DISTINCT FROM d.company_id;
  SELECT count(*) FROM backup_devices WHERE deleted_at IS NULL AND company_id IS NULL;
$$;
CREATE INDEX backup_devices_company ON backup_devices (company_id) WHERE deleted_at IS NULL;
