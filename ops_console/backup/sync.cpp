#include "ops_console/backup/sync.hpp"

#include "core/async/join.hpp"
#include "core/async/semaphore.hpp"
#include "core/log/log.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "ops_console/sync_history.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <algorithm>
#include <map>

namespace ops_console::backup {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::size_t kDevicesAtOnce = 4;
// Devices written in one transaction: each group's devices are read one after the other (four
// groups at once), then written with one commit.
constexpr std::size_t kDevicesPerTransaction = 10;

constexpr std::string_view kBackupNow = "SELECT now()::text";

// A page of devices ($1: items as Datto sent them); answers their serial numbers and names.
constexpr std::string_view kUpsertDevices = R"sql(
  INSERT INTO backup_devices AS d (serial_number, name, model, client_name, last_seen_at, hidden, agent_count,
                                   share_count, alert_count, synced_at, deleted_at)
  SELECT r."serialNumber", coalesce(r.name, r."serialNumber"), r.model, nullif(btrim(r."clientCompanyName"), ''),
         CASE WHEN r."lastSeenDate" ~ '^\d{4}-\d\d-\d\d' THEN r."lastSeenDate"::timestamptz END,
         coalesce(r.hidden, false), r."agentCount", r."shareCount", r."alertCount", now(), NULL
  FROM jsonb_to_recordset($1::jsonb) AS r("serialNumber" text, name text, model text, "clientCompanyName" text,
       "lastSeenDate" text, hidden boolean, "agentCount" integer, "shareCount" integer, "alertCount" integer)
  WHERE r."serialNumber" IS NOT NULL AND r."serialNumber" <> ''
  ON CONFLICT (serial_number) DO UPDATE SET name = EXCLUDED.name, model = EXCLUDED.model,
    client_name = EXCLUDED.client_name, last_seen_at = EXCLUDED.last_seen_at, hidden = EXCLUDED.hidden,
    agent_count = EXCLUDED.agent_count, share_count = EXCLUDED.share_count, alert_count = EXCLUDED.alert_count,
    synced_at = now(), deleted_at = NULL
  RETURNING d.serial_number, d.name
)sql";

// $1: the device's serial, $2: [backup_asset_row(...)].
constexpr std::string_view kUpsertAssets = R"sql(
  INSERT INTO backup_assets AS a (device_serial, asset_key, name, kind, os, fqdn, local_ip, agent_version, is_paused,
                                  is_archived, last_snapshot_at, latest_offsite_at, last_screenshot_at,
                                  last_screenshot_ok, last_backup_at, last_backup_status, last_backup_error,
                                  last_good_backup_at, oldest_pending_backup_at, synced_at, deleted_at)
  SELECT $1, r.key, r.name, r.kind, r.os, r.fqdn, r."localIp", r."agentVersion", coalesce(r."isPaused", false),
         coalesce(r."isArchived", false), to_timestamp(r."lastSnapshot"), to_timestamp(r."latestOffsite"),
         to_timestamp(r."lastScreenshotAttempt"), r."lastScreenshotAttemptStatus", r."lastBackupAt"::timestamptz,
         r."lastBackupStatus", r."lastBackupError", r."lastGoodBackupAt"::timestamptz,
         r."oldestPendingBackupAt"::timestamptz, now(), NULL
  FROM jsonb_to_recordset($2::jsonb) AS r(key text, name text, kind text, os text, fqdn text, "localIp" text,
       "agentVersion" text, "isPaused" boolean, "isArchived" boolean, "lastSnapshot" bigint, "latestOffsite" bigint,
       "lastScreenshotAttempt" bigint, "lastScreenshotAttemptStatus" boolean, "lastBackupAt" text,
       "lastBackupStatus" text, "lastBackupError" text, "lastGoodBackupAt" text,
       "oldestPendingBackupAt" text)
  ON CONFLICT (device_serial, asset_key) DO UPDATE SET name = EXCLUDED.name, kind = EXCLUDED.kind, os = EXCLUDED.os,
    fqdn = EXCLUDED.fqdn, local_ip = EXCLUDED.local_ip, agent_version = EXCLUDED.agent_version,
    is_paused = EXCLUDED.is_paused, is_archived = EXCLUDED.is_archived, last_snapshot_at = EXCLUDED.last_snapshot_at,
    latest_offsite_at = EXCLUDED.latest_offsite_at, last_screenshot_at = EXCLUDED.last_screenshot_at,
    last_screenshot_ok = EXCLUDED.last_screenshot_ok, last_backup_at = EXCLUDED.last_backup_at,
    last_backup_status = EXCLUDED.last_backup_status, last_backup_error = EXCLUDED.last_backup_error,
    last_good_backup_at = coalesce(EXCLUDED.last_good_backup_at, a.last_good_backup_at),
    oldest_pending_backup_at = EXCLUDED.oldest_pending_backup_at, synced_at = now(),
    deleted_at = NULL
)sql";

// $1: the device's serial, $2: its name, $3: [{sourceKey, asset, status, finishedAt, error}].
constexpr std::string_view kInsertResults = R"sql(
  WITH ins AS (
    INSERT INTO backup_results (company_id, device, job_name, status, finished_at, error, source_key, device_serial)
    SELECT (SELECT company_id FROM backup_devices WHERE serial_number = $1), r.asset, $2, r.status,
           r."finishedAt"::timestamptz, r.error, r."sourceKey", $1
    FROM jsonb_to_recordset($3::jsonb) AS r("sourceKey" text, asset text, status text, "finishedAt" text, error text)
    ON CONFLICT (source_key) DO NOTHING RETURNING 1)
  SELECT count(*) FROM ins
)sql";

constexpr std::string_view kSoftDeleteBackup = R"sql(
  WITH gone AS (UPDATE backup_devices SET deleted_at = now()
                WHERE synced_at < $1::timestamptz AND deleted_at IS NULL RETURNING 1),
  gone_assets AS (UPDATE backup_assets SET deleted_at = now()
                  WHERE synced_at < $1::timestamptz AND deleted_at IS NULL RETURNING 1)
  SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM gone_assets)
)sql";

// Each asset's mark, in microseconds since 1970: its newest stored backup, or just before the oldest
// one listed as under way at the last run when that is earlier (migration 0036). The sync sends
// only the backups listed after the mark (kInsertResults would skip the others as duplicates).
constexpr std::string_view kBackupWatermarks = R"sql(
  SELECT device_serial, asset_key,
         least((extract(epoch FROM last_backup_at) * 1000000)::bigint,
               (extract(epoch FROM oldest_pending_backup_at) * 1000000)::bigint - 1)
  FROM backup_assets WHERE last_backup_at IS NOT NULL
)sql";

// backup_rematch() (migration 0025).
constexpr std::string_view kRematchBackup = "SELECT backup_rematch()";

// What backup_rematch() answers, once the run has marked deleted what Datto no longer lists.
constexpr std::string_view kBackupUnmatched =
    "SELECT count(*) FROM backup_devices WHERE deleted_at IS NULL AND company_id IS NULL";

// Runs render as sync_history_json() (migration 0013).
constexpr std::string_view kBackupStatus = R"sql(
  SELECT json_build_object(
    'devices', (SELECT count(*) FROM backup_devices WHERE deleted_at IS NULL),
    'assets', (SELECT count(*) FROM backup_assets WHERE deleted_at IS NULL),
    'unmatched', (SELECT count(*) FROM backup_devices WHERE deleted_at IS NULL AND company_id IS NULL),
    'history', (SELECT coalesce(json_agg(sync_history_json(h) ORDER BY h.started_at DESC, h.id DESC), '[]'::json)
                FROM (SELECT * FROM sync_history WHERE entity_type = 'backup'
                      ORDER BY started_at DESC, id DESC LIMIT 10) h))
)sql";

}  // namespace

BackupSync::BackupSync(core::db::Pool& db, boost::asio::any_io_executor executor, std::shared_ptr<DattoClient> client)
    : db_(db), executor_(std::move(executor)), client_(std::move(client)) {}

awaitable<bool> BackupSync::start() {
  auto lock = co_await core::db::try_advisory_lock(db_, std::string(kSyncLock));
  if (!lock) co_return false;
  boost::asio::co_spawn(executor_, run_locked(std::move(*lock)), boost::asio::detached);
  co_return true;
}

awaitable<void> BackupSync::run_if_free() {
  auto lock = co_await core::db::try_advisory_lock(db_, std::string(kSyncLock));
  if (!lock) co_return;
  co_await run_locked(std::move(*lock));
}

awaitable<void> BackupSync::run_locked(core::db::AdvisoryLock lock) {
  const auto self = shared_from_this();
  try {
    co_await recorded_run(db_, std::string(kSyncLock), "backup", "full",
                          [this](json& counts) -> awaitable<void> { co_await full_sync(counts); });
  } catch (const std::exception& e) {
    core::log::warn("backup sync failed", {{"error", e.what()}});
  }
  co_await lock.release();
}

awaitable<json> backup_sync_status(core::db::Pool& db) {
  const bool running = co_await core::db::advisory_lock_held(db, std::string(kSyncLock));
  const auto rows = co_await db.query(kBackupStatus);
  json out = json::parse(rows.front().text(0));
  out["inProgress"] = running;
  co_return out;
}

awaitable<void> BackupSync::full_sync(json& counts) {
  // A call or more per device: the health row is written a few times a run, not once a call.
  const auto burst = client_->health_burst();
  const std::string started = std::string((co_await db_.query(kBackupNow)).front().text(0));
  std::vector<std::pair<std::string, std::string>> devices;  // serial, name
  co_await client_->each_page("/device", [&](json items) -> awaitable<void> {
    const auto rows = co_await db_.query(kUpsertDevices, items.dump());
    for (const auto& row : rows) devices.emplace_back(row.text(0), row.text(1));
  });
  counts["devices"] = devices.size();
  // The devices' companies first, so that the backups stored below carry theirs. Nothing below
  // changes a device's client name, so this is the run's only rematch.
  co_await db_.query(kRematchBackup);

  // Each asset's mark (serial, '\n', asset key: microseconds): a backup listed at or before it was
  // stored with the asset (the asset and its backups are written in one transaction). A backup
  // that was under way at the last run keeps the mark before it until it has an outcome, even
  // when a newer one finished first.
  std::map<std::string, std::int64_t> newest;
  const auto watermarks = co_await db_.query(kBackupWatermarks);
  for (const auto& row : watermarks)
    newest[std::string(row.text(0)) + '\n' + std::string(row.text(1))] = row.get<std::int64_t>(2);

  const std::size_t groups = (devices.size() + kDevicesPerTransaction - 1) / kDevicesPerTransaction;
  std::vector<std::int64_t> assets(groups), stored(groups);
  core::async::Semaphore slots(kDevicesAtOnce);
  std::vector<std::function<awaitable<void>()>> tasks;
  for (std::size_t g = 0; g < groups; ++g)
    tasks.push_back([this, &slots, &devices, &newest, g, &n = assets[g], &s = stored[g]]() -> awaitable<void> {
      auto permit = co_await slots.acquire();
      const std::size_t first = g * kDevicesPerTransaction;
      const std::size_t last = std::min(devices.size(), first + kDevicesPerTransaction);
      // Each device's assets and its backups not stored yet, read before the group is written.
      std::vector<std::pair<std::string, std::string>> writes;  // assets, results (JSON)
      for (std::size_t i = first; i < last; ++i) {
        const auto& serial = devices[i].first;
        json rows = json::array(), results = json::array();
        co_await client_->each_page(
            "/device/" + core::url_encode(serial) + "/asset", [&](json items) -> awaitable<void> {
              for (const auto& item : items) {
                if (!item.is_object()) continue;
                json one = backup_asset_row(serial, item);
                const auto key = one["asset"]["key"].get<std::string>();
                if (key.empty()) continue;
                const auto known = newest.find(serial + '\n' + key);
                rows.push_back(std::move(one["asset"]));
                for (auto& r : one["results"]) {
                  const auto at = core::parse_rfc3339(r["finishedAt"].get<std::string>());
                  if (known != newest.end() && at && at->time_since_epoch().count() <= known->second)
                    continue;  // stored already
                  results.push_back(std::move(r));
                }
              }
              co_return;
            });
        n += static_cast<std::int64_t>(rows.size());
        writes.emplace_back(rows.dump(), results.empty() ? std::string() : results.dump());
      }
      auto tx = co_await db_.begin();
      for (std::size_t i = first; i < last; ++i) {
        const auto& [rows, results] = writes[i - first];
        co_await tx.query(kUpsertAssets, devices[i].first, rows);
        if (results.empty()) continue;
        const auto inserted = co_await tx.query(kInsertResults, devices[i].first, devices[i].second, results);
        s += inserted.front().get<std::int64_t>(0);
      }
      co_await tx.commit();
    });
  co_await core::async::join_all(executor_, std::move(tasks));
  std::int64_t all_assets = 0, all_stored = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    all_assets += assets[g];
    all_stored += stored[g];
  }
  counts["assets"] = all_assets;
  counts["backupsStored"] = all_stored;
  const auto deleted = co_await db_.query(kSoftDeleteBackup, started);
  counts["devicesDeleted"] = deleted.front().get<std::int64_t>(0);
  counts["assetsDeleted"] = deleted.front().get<std::int64_t>(1);
  counts["unmatched"] = (co_await db_.query(kBackupUnmatched)).front().get<std::int64_t>(0);
}

}  // namespace ops_console::backup
