#pragma once
// Backup (issue 33, item 1; Datto BCDR; bodies: ours, ops_console/README.md "Backup"):
//   POST   /api/backup/sync                          admin: 403 off (first), 503 not configured, 409 running, else 202
//   GET    /api/backup/sync                          signed-in: {inProgress, devices, assets, unmatched, history}
//   GET    /api/backup/company-mappings              signed-in: {mappings: [{clientName, companyId, companyName,
//                                                    mappedAt}], unmatched: [{clientName, devices}]}
//   POST   /api/backup/company-mappings              admin: {clientName, companyId}; 400 unknown client or company
//   DELETE /api/backup/company-mappings              admin: ?clientName=; 404 no mapping
//   GET    /api/backup/companies/{id:int}/machines   signed-in: the company's protected machines and shares,
//                                                    backup_asset_json() (migration 0025)
//   GET    /api/backup/failures                      signed-in: failed backups of the last 24 hours, latest first
#include "core/app/service.hpp"
#include "ops_console/backup/sync.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"

#include <memory>

namespace ops_console {

// `sync` is null when the integration is not configured (`settings` names what is missing).
void install_backup_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                           std::shared_ptr<integrations::Registry> registry, std::shared_ptr<backup::BackupSync> sync,
                           backup::BackupSettings settings);

}  // namespace ops_console
