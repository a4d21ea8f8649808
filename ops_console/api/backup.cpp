#include "ops_console/api/backup.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/integrations/company_mappings.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;

namespace {

constexpr std::string_view kBackupMappings = R"sql(
  SELECT json_build_object(
    'mappings', (SELECT coalesce(json_agg(json_build_object('clientName', m.client_name, 'companyId', m.company_id,
                                                            'companyName', c.company_name, 'mappedAt', m.mapped_at)
                                          ORDER BY m.client_name), '[]'::json)
                 FROM backup_company_mappings m JOIN companies c ON c.id = m.company_id),
    'unmatched', (SELECT coalesce(json_agg(json_build_object('clientName', u.client_name, 'devices', u.devices)
                                           ORDER BY lower(u.client_name)), '[]'::json)
                  FROM (SELECT coalesce(client_name, '') AS client_name, count(*) AS devices FROM backup_devices
                        WHERE deleted_at IS NULL AND company_id IS NULL GROUP BY 1) u))
)sql";

constexpr std::string_view kClientKnown =
    "SELECT 1 FROM backup_devices WHERE lower(client_name) = lower($1) AND deleted_at IS NULL LIMIT 1";
constexpr std::string_view kBackupCompanyExists = "SELECT 1 FROM companies WHERE id = $1 AND deleted_at IS NULL";
// backup_rematch() (migration 0025) after each change, in the same transaction.
constexpr std::string_view kBackupMap = R"sql(
  WITH m AS (
    INSERT INTO backup_company_mappings (client_name, company_id, mapped_by) VALUES (lower($1), $2, $3)
    ON CONFLICT (client_name) DO UPDATE SET company_id = EXCLUDED.company_id, mapped_by = EXCLUDED.mapped_by,
      mapped_at = now()
    RETURNING json_build_object('clientName', client_name, 'companyId', company_id, 'mappedAt', mapped_at) AS j)
  SELECT j FROM m
)sql";
constexpr std::string_view kBackupUnmap =
    "DELETE FROM backup_company_mappings WHERE client_name = lower($1) RETURNING 1";
constexpr std::string_view kBackupRematch = "SELECT backup_rematch()";

// Machines render as backup_asset_json() (migration 0025).
constexpr std::string_view kCompanyMachines = R"sql(
  SELECT coalesce(json_agg(backup_asset_json(a, d.name) ORDER BY lower(a.name), a.device_serial, a.asset_key),
                  '[]'::json)
  FROM backup_assets a JOIN backup_devices d ON d.serial_number = a.device_serial
  WHERE d.company_id = $1 AND d.deleted_at IS NULL AND a.deleted_at IS NULL
)sql";

constexpr std::string_view kRecentFailures = R"sql(
  SELECT coalesce(json_agg(json_build_object('id', r.id, 'machine', r.device, 'deviceName', r.job_name,
                                             'deviceSerial', r.device_serial, 'companyId', r.company_id,
                                             'companyName', c.company_name, 'finishedAt', r.finished_at,
                                             'error', r.error)
                           ORDER BY r.finished_at DESC, r.id DESC), '[]'::json)
  FROM backup_results r LEFT JOIN companies c ON c.id = r.company_id
  WHERE r.status = 'failed' AND r.finished_at > now() - interval '24 hours'
)sql";

}  // namespace

void install_backup_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                           std::shared_ptr<integrations::Registry> registry, std::shared_ptr<backup::BackupSync> sync,
                           backup::BackupSettings settings) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  const auto missing = settings.missing();

  routes.post("/api/backup/sync", Access::admin(),
              integrations::start_sync_handler(registry,
                                               {.key = "backup",
                                                .name = "backup",
                                                .service = "the backup service",
                                                .run = "a backup sync",
                                                .missing = missing},
                                               sync ? std::function([sync] { return sync->start(); }) : nullptr));

  routes.get("/api/backup/sync", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("backup", "backup");
    co_return Response::json(co_await backup::backup_sync_status(db));
  });

  routes.get("/api/backup/company-mappings", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("backup", "backup");
    co_return co_await core::app::json_document(db, kBackupMappings);
  });

  integrations::install_company_mapping_routes(routes, db, registry,
                                               {.path = "/api/backup/company-mappings",
                                                .key = "backup",
                                                .name = "backup",
                                                .key_field = "clientName",
                                                .noun = "client",
                                                .unknown_key = "names no backup device's client (run a sync first?)",
                                                .exists = kClientKnown,
                                                .map = kBackupMap,
                                                .unmap = kBackupUnmap,
                                                .rematch = kBackupRematch});

  routes.get("/api/backup/companies/{id:int}/machines", [&db, registry](Request& req) -> awaitable<Response> {
    co_await registry->require_enabled("backup", "backup");
    const auto company = core::parse_int64(req.param("id")).value_or(0);
    if ((co_await db.query(kBackupCompanyExists, company)).empty())
      throw Problem::not_found("company " + std::to_string(company) + " does not exist");
    co_return co_await core::app::json_document(db, kCompanyMachines, company);
  });

  routes.get("/api/backup/failures", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("backup", "backup");
    co_return co_await core::app::json_document(db, kRecentFailures);
  });
}

}  // namespace ops_console
