#pragma once
#include "core/app/service.hpp"
#include "mail_triage/pipeline/purge.hpp"

#include <memory>

namespace mail_triage {

// POST /api/v1/purge/execute: preview or delete old mail of purge-rule senders (pipeline/purge.hpp).
void install_purge_routes(core::app::Context& ctx, std::shared_ptr<pipeline::Purge> purge);

}  // namespace mail_triage
