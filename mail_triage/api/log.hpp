#pragma once
#include "core/app/service.hpp"

namespace mail_triage {

// GET /api/v1/log and GET /api/v1/log/{entry_id} (spec: "Email log").
void install_log_routes(core::app::Context& ctx);

// `q` as an ILIKE pattern that matches it as a plain substring: %, _ and \ are escaped.
std::string substring_pattern(std::string_view q);

}  // namespace mail_triage
