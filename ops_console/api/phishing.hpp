#pragma once
// Phishing (issue 21; spec "Phishing", "Phishing campaign"; ops_console/README.md, "Phishing"):
//   POST /api/phishing/tickets/{ticket_id}/analyze  perm(phishing, analyze): no body; 400 non-numeric id
//        (naming ticket_id), 404 no such ticket, 400 not a phishing report, 503/403 an attachment-only
//        ticket without the PSA, 502 the PSA failed; else 201 (a new report) or 200 (analysed again)
//        {ticketId, reportId, messagesRead, campaignCreated, campaign: phishing_campaign_json() (migration 0019)}
//   GET  /api/phishing/campaigns                    perm(phishing, read): ?limit (50, clamped to 0..200; 0
//        honoured), offset, status (open, closed) → {items, total, limit, offset}
//   GET  /api/phishing/campaigns/{id}               perm(phishing, read): the campaign with its reports,
//        messages, indicators, classifications, requesterEmail; 400 malformed UUID, 404 missing
//   POST /api/phishing/campaigns/{id}/classify      perm(phishing, analyze): no body; 400 malformed UUID, 404
//        missing, 503 no model (LLM_BASE_URL), 502 the model failed; else the stored classification,
//        phishing_classification_json() (migration 0019), flat: {id, campaignId, verdict, confidence, reasons, ...}
#include "core/app/service.hpp"
#include "core/llm/chat.hpp"
#include "ops_console/analyzer/cost.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/psa/autotask.hpp"

#include <memory>

namespace ops_console {

// `psa` is null when the PSA is not configured: then only pasted headers can be read.
void install_phishing_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                             std::shared_ptr<psa::AutotaskClient> psa,
                             std::shared_ptr<integrations::Registry> registry);

// The classify route, registered with the analyzer (which owns the model client; null: not configured).
void install_phishing_classify_route(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                                     std::shared_ptr<core::llm::ChatClient> llm, analyzer::Pricing pricing);

}  // namespace ops_console
