#pragma once
// The ticket analyzer (issue 21; spec "Ticket analyzer"; README "Ticket analyzer" has the bodies):
//   GET  /api/analyzer/tickets/list             period, companyId, issueType, search, limit, offset
//   GET  /api/analyzer/tickets/filter-options   clients, issue types, queues, statuses, priorities, assignees
//   POST /api/analyzer/analyze                  {ticketIds, route?, confirmCost?} → 202 {jobs, cost}; 409/429 gate
//   GET  /api/analyzer/jobs/{id}                a job's state
//   GET  /api/analyzer/analyses?ticketId=       feed rows of a ticket's analyses
//   GET  /api/analyzer/analyses/{id}            one analysis (traces for administrators only)
//   POST /api/analyzer/analyses/{id}/share      {recipients, message?} → 200 {share, emailSent, emailError?}
//   POST /api/analyzer/reports                  {period, companyId?, confirmCost?} → 202 report + cost
//   GET  /api/analyzer/reports/{id}             a report, its narrative once written
// Every route: signed-in.
#include "core/app/service.hpp"
#include "core/graph/mail.hpp"
#include "core/llm/chat.hpp"
#include "ops_console/analyzer/settings.hpp"
#include "ops_console/identity/identity.hpp"

#include <memory>

namespace ops_console {

struct AnalyzerWiring {
  analyzer::AnalyzerSettings settings;
  std::shared_ptr<core::llm::ChatClient> llm;       // null: LLM_BASE_URL unset (analyze and reports answer 503)
  std::shared_ptr<core::graph::GraphClient> graph;  // null: GRAPH_* unset (shares are stored, not mailed)
};

void install_analyzer_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                             std::shared_ptr<const AnalyzerWiring> wiring);

}  // namespace ops_console
