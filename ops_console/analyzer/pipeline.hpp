#pragma once
// One analysis run: the pipeline of named stages a worker runs for a job (README "Ticket analyzer").
//
//   gather     the ticket, its company, its time entries (the PSA copy; no model)
//   classify   the model: category, urgency, sentiment, confidence, whether a human should review
//   summarise  the model: summary, next steps, documentation references
//
// Each execution is a pipeline_executions row (pipeline_id 1); every stage, whether it succeeded
// or failed, is appended to its output_data.stages as it ends ({name, status, startedAt, durationMs,
// promptTokens, completionTokens, cost, model, error}) and its cost added to the row's cost, so
// money spent by a run whose worker died is still counted. The ticket's text goes to the model as
// data between random boundary markers, never as instructions. A stage that failed ends the run:
// the analysis is stored with status `failed` and the error. A request that named a route whose
// model the server does not have (404 model_not_found) falls back to the default model and the
// run's output_data gets `user_route_fallback: {route, model, usedModel}`.
#include "core/db/pool.hpp"
#include "core/llm/chat.hpp"
#include "ops_console/analyzer/settings.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace ops_console::analyzer {

inline constexpr std::int64_t kTicketAnalysisPipeline = 1;
inline constexpr std::int64_t kReportPipeline = 2;

struct Job {
  std::int64_t id = 0;
  std::int64_t ticket_id = 0;
  std::optional<std::string> route;
  std::optional<std::int64_t> requested_by;
  int attempts = 0;
};

// What one ticket's analysis is expected to use, from the characters of its text: both model
// stages read the ticket, and each may write up to its token limit.
struct TokenEstimate {
  std::int64_t prompt = 0;
  std::int64_t completion = 0;
};
TokenEstimate analysis_tokens(std::int64_t text_chars);

class Pipeline {
 public:
  Pipeline(core::db::Pool& db, std::shared_ptr<core::llm::ChatClient> llm, AnalyzerSettings settings);

  // Runs `job` and stores its analysis, the execution's end and the job's end in one transaction,
  // if `lease_owner` still holds the job; returns the analysis id, or nullopt when the lease was
  // lost meanwhile (another worker has the job: nothing is stored).
  boost::asio::awaitable<std::optional<std::int64_t>> run(Job job, std::string lease_owner);

 private:
  struct Run;
  boost::asio::awaitable<nlohmann::json> ask(Run& run, std::string stage, nlohmann::json schema, int max_tokens,
                                             std::string instructions);
  core::db::Pool& db_;
  std::shared_ptr<core::llm::ChatClient> llm_;
  AnalyzerSettings settings_;
};

// Records a stage on an execution (appends it to output_data.stages, adds its cost).
boost::asio::awaitable<void> record_stage(core::db::Pool& db, std::int64_t execution_id, nlohmann::json stage,
                                          double cost);
// Ends an execution without further output: succeeded, or failed with `error`.
boost::asio::awaitable<void> finish_execution(core::db::Pool& db, std::int64_t execution_id,
                                              std::optional<std::string> error);
// One model stage: asks, records the stage (succeeded or failed, with tokens and cost) on the
// execution, and returns the reply or throws the LlmError.
boost::asio::awaitable<core::llm::ChatReply> recorded_ask(core::db::Pool& db, core::llm::ChatClient& llm,
                                                          const Pricing& pricing, std::int64_t execution_id,
                                                          std::string stage, core::llm::ChatRequest request);
// Starts an execution row (status running) and returns its id.
boost::asio::awaitable<std::int64_t> start_execution(core::db::Pool& db, std::int64_t pipeline_id,
                                                     std::optional<std::int64_t> ticket_id, nlohmann::json input);

}  // namespace ops_console::analyzer
