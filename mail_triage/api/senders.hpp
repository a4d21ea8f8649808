#pragma once
#include "core/app/service.hpp"

namespace mail_triage {

// /api/v1/senders and /api/v1/senders/{profile_id} (spec: "Sender profiles").
void install_sender_routes(core::app::Context& ctx);

}  // namespace mail_triage
