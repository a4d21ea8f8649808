#include "ops_console/analyzer/settings.hpp"

#include "core/util/strings.hpp"

namespace ops_console::analyzer {

AnalyzerSettings read_analyzer_settings(core::config::Reader& env) {
  AnalyzerSettings s;
  s.workers = static_cast<int>(
      env.integer("ANALYZER_WORKERS", 2, "analysis jobs this instance runs at once (0: none here)", {0, 64}));
  s.lease = std::chrono::seconds(env.integer("ANALYZER_LEASE_SECONDS", 30,
                                             "a job whose worker stopped renewing its lease this long is taken again",
                                             {1, 300}));
  s.poll = std::chrono::milliseconds(
      env.integer("ANALYZER_POLL_MS", 5'000, "idle analyzer workers look for abandoned jobs this often", {50, 60'000}));
  s.pricing.input_per_mtok = env.decimal("LLM_PRICE_INPUT_PER_MTOK", 0.15,
                                         "currency units per million prompt tokens (cost guards)", 0, 1'000'000);
  s.pricing.output_per_mtok = env.decimal("LLM_PRICE_OUTPUT_PER_MTOK", 0.60,
                                          "currency units per million completion tokens (cost guards)", 0, 1'000'000);
  for (const auto& email : env.list("ANALYZER_DAILY_COST_OVERRIDE_USERS", "",
                                    "e-mails allowed past the daily cost limit of 50, comma-separated"))
    s.override_users.insert(core::to_lower(email));
  for (const auto& pair :
       env.list("ANALYZER_ROUTES", "", "routes a request may name, name=model comma-separated (e.g. deep=gpt-4o)")) {
    const auto eq = pair.find('=');
    const std::string name(core::trim(std::string_view(pair).substr(0, eq)));
    const std::string model =
        eq == std::string::npos ? "" : std::string(core::trim(std::string_view(pair).substr(eq + 1)));
    if (name.empty() || model.empty())
      env.fail("ANALYZER_ROUTES", "'" + pair + "' is not name=model");
    else
      s.routes[name] = model;
  }
  s.mail_sender =
      core::to_lower(env.string("MAIL_SENDER", "", "mailbox analyzer shares are sent from (Graph sendMail)"));
  return s;
}

}  // namespace ops_console::analyzer
