#pragma once
#include "core/app/service.hpp"

namespace mail_triage {

// GET /api/v1/log and GET /api/v1/log/{entry_id} (spec: "Email log").
void install_log_routes(core::app::Context& ctx);

}  // namespace mail_triage
