#pragma once
// The MFA summary (issue 20; spec "Other integration routes"), signed-in:
//   GET /api/mfa/status          {bypass, disabled (counts, separately), accounts, failedAccounts, fetchedAt, cached}
//   GET /api/mfa/users/flagged   {bypass: [...], disabled: [...], accounts: [...], fetchedAt, cached}
// 403 while the integration is switched off (first), 503 naming the missing MFA_* settings, 502
// when the parent account fails (a failing child is reported in `accounts`).
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/mfa/flagged.hpp"

#include <memory>

namespace ops_console {

void install_mfa_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                        std::shared_ptr<integrations::Registry> registry, std::shared_ptr<mfa::FlaggedUsers> flagged,
                        mfa::MfaSettings settings);

}  // namespace ops_console
