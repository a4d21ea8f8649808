#pragma once
// Administration routes that need no external system (issue 6):
//   GET   /api/admin/company-scope               admin  every company with its scope (opt-out: no row = in scope)
//   PATCH /api/admin/company-scope/{companyId}   admin  {in_scope, note?} → the company's scope, upserted
//   GET   /api/admin/display-settings            admin  the six kiosk and mobile id lists
//   POST  /api/admin/display-settings            admin  any of the six lists → all six
//   GET   /api/admin/pipeline-executions         admin  ?fallbacks_only&pipeline_id&limit → {items, limit}
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"

namespace ops_console {

void install_admin_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity);

}  // namespace ops_console
