#pragma once
#include "core/app/service.hpp"

namespace mail_triage {

// GET /api/v1/analysis/senders (spec: "Analysis").
void install_analysis_routes(core::app::Context& ctx);

}  // namespace mail_triage
