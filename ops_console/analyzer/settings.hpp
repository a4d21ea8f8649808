#pragma once
// The analyzer's settings (README "Ticket analyzer"; the model itself is LLM_*, core/llm/chat.hpp).
#include "core/config/config.hpp"
#include "ops_console/analyzer/cost.hpp"

#include <chrono>
#include <map>
#include <set>
#include <string>

namespace ops_console::analyzer {

struct AnalyzerSettings {
  int workers = 2;                            // ANALYZER_WORKERS: jobs run at once by this instance
  std::chrono::seconds lease{30};             // ANALYZER_LEASE_SECONDS: a dead worker's job is taken again after this
  std::chrono::milliseconds poll{5'000};      // ANALYZER_POLL_MS: idle workers look for expired leases this often
  Pricing pricing;                            // LLM_PRICE_INPUT_PER_MTOK, LLM_PRICE_OUTPUT_PER_MTOK
  std::set<std::string> override_users;       // ANALYZER_DAILY_COST_OVERRIDE_USERS, lowercased e-mails
  std::map<std::string, std::string> routes;  // ANALYZER_ROUTES: name → model
  std::string mail_sender;                    // MAIL_SENDER: the mailbox shares are sent from
};

AnalyzerSettings read_analyzer_settings(core::config::Reader& env);

}  // namespace ops_console::analyzer
