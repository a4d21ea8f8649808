#pragma once
// Mail security (issue 20; spec "Mail security"), every route signed-in:
//   GET  /api/mailsec/held               ?tenant&limit → held messages (admin flag, 403 fallback), no-store
//   POST /api/mailsec/held/release       {id, tenant?} → {id, released, reason?}
//   POST /api/mailsec/delivered          {recipient?, sender?, subject?, start?, end?, tenant?} → tracked mail
//                                        with status, spam score and class; the range 6 hours to 7 days
//   POST /api/mailsec/mailbox-remediate  {action: search|move|delete, mailbox, query | messageIds} (Graph)
// 403 while the integration is switched off (first); 503 naming the unset settings.
#include "core/app/service.hpp"
#include "core/graph/mail.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/mailsec/mimecast.hpp"

#include <map>
#include <memory>

namespace ops_console {

struct MailsecWiring {
  mailsec::MailsecSettings settings;
  std::map<std::string, std::shared_ptr<mailsec::MimecastClient>> tenants;  // by name
  std::shared_ptr<core::graph::GraphClient> graph;                          // null: GRAPH_* unset
  std::vector<std::string> graph_missing;
};

void install_mailsec_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                            std::shared_ptr<integrations::Registry> registry,
                            std::shared_ptr<const MailsecWiring> wiring);

}  // namespace ops_console
