#pragma once
#include "core/app/service.hpp"
#include "mail_triage/pipeline/triage.hpp"

#include <memory>

namespace mail_triage {

// POST /api/v1/process: one processing run (pipeline/triage.hpp).
void install_process_routes(core::app::Context& ctx, std::shared_ptr<pipeline::Triage> triage);

}  // namespace mail_triage
