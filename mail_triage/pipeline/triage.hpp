#pragma once
// The processing run of POST /api/v1/process (issue 4): fetch unread mail of the last
// PROCESS_LOOKBACK_DAYS from every mailbox, resolve who sent it, classify it, act on it, log it.
//
// Per message: recorded `pending`, then claimed (`processing`) by exactly one run, then
// `skipped` (whitelisted sender, no model call, mailbox untouched), `completed` (classified and
// acted on, or only the intended action recorded under TRIAGE_DRY_RUN) or `failed` (the error
// recorded; the next run tries again). A message already completed or skipped is never claimed
// again; one left `processing` by a crashed run is claimed again after PROCESSING_TIMEOUT_MINUTES.
//
// One run at a time across every instance: a session advisory lock held on one connection for
// the run (released by PostgreSQL if the instance dies). Model calls, and the database and mail
// work around them, run up to LLM_CONCURRENCY messages at once; each mailbox gets at most four
// Graph requests at once. A mailbox that cannot be read is reported and the others go on.
#include "core/async/schedule.hpp"
#include "core/async/semaphore.hpp"

#include "core/config/config.hpp"
#include "core/db/pool.hpp"
#include "core/graph/mail.hpp"
#include "core/llm/chat.hpp"
#include "core/metrics/metrics.hpp"
#include "mail_triage/classifier/classifier.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mail_triage::pipeline {

struct TriageSettings {
  std::optional<core::graph::GraphSettings> graph;  // nullopt: GRAPH_* not configured
  std::vector<std::string> mailboxes;
  std::string classifier;  // openai | rules
  core::llm::LlmSettings llm;
  std::size_t llm_concurrency = 4;
  int lookback_days = 14;
  int processing_timeout_minutes = 30;
  std::chrono::milliseconds interval{0};  // PROCESS_INTERVAL_MINUTES; 0: no schedule
  bool dry_run = false;
};

// Reads the GRAPH_*, CLASSIFIER, LLM_*, PROCESS_*, TRIAGE_* variables (also for --help).
TriageSettings read_triage_settings(core::config::Reader& env);

struct RunResult {
  int processed = 0;                                                // messages claimed and handled by this run
  std::vector<std::pair<std::string, std::string>> mailbox_errors;  // mailbox, what went wrong
};

// The Graph client of the settings, shared by the run and the purge so that the four-requests-
// per-mailbox limit and the token cache hold for both; null when GRAPH_* is not configured.
std::shared_ptr<core::graph::GraphClient> make_graph_client(boost::asio::any_io_executor executor,
                                                            const TriageSettings& settings);

class Triage : public std::enable_shared_from_this<Triage> {
 public:
  // `graph` is null when the mail platform is not configured (run() answers 503).
  Triage(boost::asio::any_io_executor executor, core::db::Pool& db, TriageSettings settings,
         std::shared_ptr<core::graph::GraphClient> graph);
  ~Triage();

  // Throws Problem 409 while another run holds the lock, 503 when the mail platform is not configured.
  boost::asio::awaitable<RunResult> run();
  // Runs every `interval` (when set) until stop_schedule(). The schedule keeps the Triage alive
  // (create it with make_shared) until its loop has ended; a run under way finishes first.
  void start_schedule();
  void stop_schedule();

  const TriageSettings& settings() const { return settings_; }

  // Counts runs and messages in `registry` from now on (docs/metrics.md):
  // mail_triage_processing_runs_total{outcome}: ok, mailbox_errors (a mailbox could not be read),
  // busy (another run held the lock: 409), error (the run failed, the database say);
  // mail_triage_processing_run_duration_seconds; mail_triage_messages_total{outcome}: completed,
  // skipped (whitelisted sender), failed (the model or the mail platform failed on it).
  void count_in(core::metrics::Registry& registry);

 private:
  struct Counters;
  boost::asio::awaitable<RunResult> run_once();
  boost::asio::awaitable<void> run_mailbox(const std::string& mailbox, const std::string& run_id, RunResult& result);
  boost::asio::awaitable<bool> process(const std::string& mailbox, const core::graph::MailMessage& message,
                                       const std::string& run_id);
  boost::asio::awaitable<void> act(const std::string& action, const std::string& mailbox, const std::string& id);

  boost::asio::any_io_executor executor_;
  core::db::Pool& db_;
  TriageSettings settings_;
  std::shared_ptr<core::graph::GraphClient> graph_;
  std::unique_ptr<classifier::Classifier> classifier_;
  core::async::Semaphore slots_;
  std::mutex results_mutex_;  // RunResult is filled by tasks on several threads
  std::shared_ptr<core::async::Schedule> schedule_;
  std::unique_ptr<Counters> counters_;  // null: not counted
};

}  // namespace mail_triage::pipeline
