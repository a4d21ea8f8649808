#pragma once
// The model's verdict on a phishing campaign (spec "Phishing": POST .../campaigns/{id}/classify).
// The campaign's indicators and subjects go to the model as data between boundary markers; the
// reply (verdict malicious|suspicious|spam|benign, confidence 0..1, reasons) is validated against
// its schema and stored as a phishing_classifications row. The call is a pipeline run of its own
// (pipeline_executions, pipeline_id 3, stage "classify"), so its tokens and cost count towards
// the analyzer's daily total; it is not gated (one call of a few hundred tokens).
#include "core/db/pool.hpp"
#include "core/llm/chat.hpp"
#include "ops_console/analyzer/cost.hpp"

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <string>

namespace ops_console::phishing {

inline constexpr std::int64_t kClassifyPipeline = 3;

// The stored classification, phishing_classification_json() (migration 0019); nullopt when the
// campaign does not exist. A model that fails throws core::llm::LlmError (the run is recorded).
boost::asio::awaitable<std::optional<nlohmann::json>> classify_campaign(core::db::Pool& db, core::llm::ChatClient& llm,
                                                                        analyzer::Pricing pricing,
                                                                        std::string campaign_id);

}  // namespace ops_console::phishing
