#pragma once
#include "core/app/service.hpp"

namespace mail_triage {

// /api/v1/whitelist and /api/v1/whitelist/{entry_id} (spec: "Whitelist").
void install_whitelist_routes(core::app::Context& ctx);

}  // namespace mail_triage
