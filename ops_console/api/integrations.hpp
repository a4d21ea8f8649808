#pragma once
// Integration switches (issue 6), perm(admin, access):
//   GET   /api/admin/integrations   {items: [{key, label, disabled, reason, disabled_by, disabled_at,
//                                    updated_by, updated_at, disabled_by_env, effective_disabled}],
//                                    env_disabled: [...]}
//   PATCH /api/admin/integrations   {key, disabled, reason?} → the item; the key may be an alias
// A PATCH drops this instance's cache at once; the table's trigger announces the change to the
// other instances (integrations/registry.hpp).
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"

namespace ops_console {

void install_integration_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                                std::shared_ptr<integrations::Registry> registry);

}  // namespace ops_console
