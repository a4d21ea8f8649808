#pragma once
// The depths of the console's work queues, as ops_console_queue_depth{queue} (docs/metrics.md):
//
//   analyzer          analysis jobs queued (analysis_jobs, status 'queued')
//   agent_delivery    agent copies waiting to be sent (agent_deliveries, status 'pending')
//   rmm_execution     script runs queued (rmm_executions, status 'queued')
//   webhook_intake    PSA callouts waiting for the group commit under way (psa::WebhookIntake)
//
// The first three are counted by one statement before each scrape, given `deadline` to answer: a
// scrape never waits longer, whatever the database does. A refresh that fails or is late counts
// ops_console_metrics_refresh_errors_total, and the three depths are absent from that scrape
// (no figure rather than a stale one); a refresh still running when the next scrape comes is not
// started twice.
#include "core/app/service.hpp"

#include <chrono>
#include <functional>

namespace ops_console {

// `intake_waiting`: the webhook intake's waiting callouts.
void install_queue_metrics(core::app::Context& ctx, std::function<std::size_t()> intake_waiting,
                           std::chrono::milliseconds deadline = std::chrono::milliseconds(2000));

}  // namespace ops_console
