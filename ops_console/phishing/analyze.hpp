#pragma once
// Analysis of a phishing report (issue 21; spec "Phishing", POST /api/phishing/tickets/{id}/analyze):
//
//   auto outcome = co_await phishing::analyze_ticket(db, psa, psa_absent, ticket_id, user_id);
//
//   1. detect: the ticket in the PSA copy (404 without one); its reported messages: each attachment
//      that is an e-mail (is_reported_message), read through the PSA, and a header block pasted
//      into its description (message.hpp); none of either: 400, not a phishing report;
//   2. fetch: the e-mail attachments' bytes from the PSA, before any transaction (a PSA failure is
//      a 502 and changes nothing);
//   3. parse: each message with GMime (message.hpp); one that does not parse is not a reported
//      message;
//   4. store and group, in one transaction: the report (one per ticket), its messages (one per
//      raw SHA-256) and their indicators (one per kind and value), each an upsert, so running it
//      again duplicates nothing; a report seen for the first time joins the oldest open campaign
//      that already holds one of its sender addresses, reply-to addresses, URL domains or
//      attachment hashes, else a new campaign; a report keeps its campaign when run again.
//      Campaigns never merge. Analyses take one transaction-scoped advisory lock, so two reports
//      of one campaign analysed at once still meet.
//
// Without a PSA client (PSA_* unset, or the integration switched off) only pasted headers can be
// read: a ticket without them answers `psa_absent` (503 naming the settings, or 403), since its
// attachments cannot be looked at.
#include "core/db/pool.hpp"
#include "core/http/problem.hpp"
#include "ops_console/psa/autotask.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace ops_console::phishing {

struct AnalysisOutcome {
  std::int64_t report_id = 0;
  std::string campaign_id;
  bool report_created = false;    // the ticket was not a report before
  bool campaign_created = false;  // its report opened a new campaign
  int messages = 0;               // messages read this time
};

// An attachment that is an e-mail: content type message/rfc822, or a title or file name ending
// in .eml (case-insensitive), whatever its content type says.
bool is_reported_message(const psa::TicketAttachment& attachment);

// `psa` may be null; then `psa_absent` is what a ticket without pasted headers answers.
boost::asio::awaitable<AnalysisOutcome> analyze_ticket(core::db::Pool& db, std::shared_ptr<psa::AutotaskClient> psa,
                                                       core::http::Problem psa_absent, std::int64_t ticket_id,
                                                       std::int64_t user_id);

}  // namespace ops_console::phishing
