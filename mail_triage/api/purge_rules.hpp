#pragma once
#include "core/app/service.hpp"

namespace mail_triage {

// /api/v1/purge-rules and /api/v1/purge-rules/{rule_id} (spec: "Purge rules").
void install_purge_rule_routes(core::app::Context& ctx);

}  // namespace mail_triage
