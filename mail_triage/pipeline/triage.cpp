#include "mail_triage/pipeline/triage.hpp"

#include "core/async/join.hpp"
#include "core/db/advisory_lock.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "core/log/log.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"
#include "mail_triage/classifier/openai.hpp"
#include "mail_triage/classifier/policy.hpp"
#include "mail_triage/classifier/rules.hpp"

namespace mail_triage::pipeline {

using boost::asio::awaitable;
using core::http::Problem;
using nlohmann::json;

namespace {

// Every fetched message of a mailbox is on the log, in one statement, before any is worked on;
// one already there stays as it is.
constexpr std::string_view kRecordPending = R"sql(
  INSERT INTO email_log (mailbox, message_id, internet_message_id, sender_address, sender_name, subject,
                         received_at, status, run_id)
  SELECT $1, m.id, nullif(m.internet_id, ''), lower(m.sender), nullif(m.name, ''), m.subject, m.received,
         'pending', $2
  FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
       AS m(id, internet_id, sender, name, subject, received)
  ON CONFLICT (mailbox, message_id) DO NOTHING
)sql";

// Exactly one run gets a message: pending and failed ones, and ones a crashed run left processing.
constexpr std::string_view kClaim = R"sql(
  UPDATE email_log e SET status = 'processing', run_id = $3, error = NULL, updated_at = now()
  WHERE e.mailbox = $1 AND e.message_id = $2
    AND (e.status IN ('pending', 'failed')
         OR (e.status = 'processing' AND e.updated_at < now() - make_interval(mins => $4::integer)))
  RETURNING e.id
)sql";

constexpr std::string_view kSender = R"sql(
  SELECT sender_type_of($1),
         (SELECT json_build_object('display_name', p.display_name, 'sender_type', p.sender_type,
                                   'email_types', p.email_types,
                                   'processing_instructions', p.processing_instructions)
          FROM sender_profiles p WHERE p.email_address = lower($1) AND p.is_active)
)sql";

constexpr std::string_view kSkipped = R"sql(
  UPDATE email_log SET status = 'skipped', sender_type = $2, final_action = 'keep', dry_run = $3,
                       processed_at = now(), updated_at = now()
  WHERE id = $1
)sql";

constexpr std::string_view kCompleted = R"sql(
  UPDATE email_log SET status = 'completed', sender_type = $2, llm_classification = $3, llm_confidence = $4,
                       llm_reasoning = $5, final_action = $6, llm_model = $7, llm_prompt_tokens = $8,
                       llm_completion_tokens = $9, dry_run = $10, error = NULL,
                       processed_at = now(), updated_at = now()
  WHERE id = $1
)sql";

constexpr std::string_view kFailed = R"sql(
  UPDATE email_log SET status = 'failed', sender_type = coalesce($3, sender_type), error = $2,
                       processed_at = now(), updated_at = now()
  WHERE id = $1
)sql";

// Model calls share the process's outbound HTTP slots with Graph; 16 stay free for it.
constexpr std::int64_t kMaxLlmConcurrency = static_cast<std::int64_t>(core::http::kMaxAttemptsInFlight) - 16;

std::unique_ptr<classifier::Classifier> make_classifier(boost::asio::any_io_executor ex, const TriageSettings& s) {
  if (s.classifier == "openai") return std::make_unique<classifier::OpenAiClassifier>(ex, s.llm);
  return std::make_unique<classifier::RulesClassifier>();
}

}  // namespace

TriageSettings read_triage_settings(core::config::Reader& env) {
  TriageSettings s;
  const auto g = core::graph::read_graph_settings(env);  // unset: POST /api/v1/process answers 503
  s.mailboxes = env.list("GRAPH_MAILBOX", "", "mailbox(es) to triage, comma-separated");
  const bool configured =
      !g.tenant_id.empty() && !g.client_id.empty() && !g.client_secret.empty() && !s.mailboxes.empty();
  const bool partly = !g.tenant_id.empty() || !g.client_id.empty() || !g.client_secret.empty() || !s.mailboxes.empty();
  if (partly && !configured)
    env.fail(
        "GRAPH_TENANT_ID",
        "GRAPH_TENANT_ID, GRAPH_CLIENT_ID, GRAPH_CLIENT_SECRET and GRAPH_MAILBOX go together: set all four or none");
  if (configured) s.graph = g;
  for (auto& m : s.mailboxes) m = core::to_lower(m);

  s.llm = core::llm::read_llm_settings(env);  // LLM_BASE_URL unset: the rules classifier
  s.classifier = env.one_of("CLASSIFIER", s.llm.configured() ? "openai" : "rules", {"openai", "rules"},
                            "classifier: openai (needs LLM_BASE_URL) or rules (offline)");
  if (s.classifier == "openai" && !s.llm.configured() && !env.is_describing())
    env.fail("LLM_BASE_URL", "CLASSIFIER=openai needs LLM_BASE_URL");
  s.llm_concurrency = static_cast<std::size_t>(
      env.integer("LLM_CONCURRENCY", 4, "messages classified at once", {1, kMaxLlmConcurrency}));
  s.lookback_days = static_cast<int>(
      env.integer("PROCESS_LOOKBACK_DAYS", 14, "a run fetches unread mail this many days back", {1, 3650}));
  s.processing_timeout_minutes = static_cast<int>(env.integer(
      "PROCESSING_TIMEOUT_MINUTES", 30, "a message left processing this long is taken up again", {1, 10080}));
  s.interval = std::chrono::minutes(
      env.integer("PROCESS_INTERVAL_MINUTES", 0, "run on a schedule every N minutes (0: only on request)", {0, 10080}));
  s.dry_run = env.boolean("TRIAGE_DRY_RUN", false, "record the intended action, touch nothing in the mailbox");
  return s;
}

std::shared_ptr<core::graph::GraphClient> make_graph_client(boost::asio::any_io_executor executor,
                                                            const TriageSettings& settings) {
  if (!settings.graph) return nullptr;
  return std::make_shared<core::graph::GraphClient>(executor, *settings.graph);
}

Triage::Triage(boost::asio::any_io_executor executor, core::db::Pool& db, TriageSettings settings,
               std::shared_ptr<core::graph::GraphClient> graph)
    : executor_(executor),
      db_(db),
      settings_(std::move(settings)),
      graph_(std::move(graph)),
      slots_(settings_.llm_concurrency) {
  classifier_ = make_classifier(executor, settings_);
}

struct Triage::Counters {
  explicit Counters(core::metrics::Registry& r) {
    auto& runs = r.counter("mail_triage_processing_runs_total",
                           "Processing runs, by outcome (ok, mailbox_errors, busy, error)", {"outcome"});
    run_ok = &runs.with({"ok"});
    run_mailbox_errors = &runs.with({"mailbox_errors"});
    run_busy = &runs.with({"busy"});
    run_error = &runs.with({"error"});
    run_time = &r.histogram("mail_triage_processing_run_duration_seconds", "How long processing runs took", {},
                            core::metrics::run_buckets())
                    .get();
    auto& messages =
        r.counter("mail_triage_messages_total",
                  "Messages a processing run handled, by outcome (completed, skipped, failed)", {"outcome"});
    completed = &messages.with({"completed"});
    skipped = &messages.with({"skipped"});
    failed = &messages.with({"failed"});
  }
  core::metrics::Counter* run_ok;
  core::metrics::Counter* run_mailbox_errors;
  core::metrics::Counter* run_busy;
  core::metrics::Counter* run_error;
  core::metrics::Histogram* run_time;
  core::metrics::Counter* completed;
  core::metrics::Counter* skipped;
  core::metrics::Counter* failed;
};

Triage::~Triage() = default;

void Triage::count_in(core::metrics::Registry& registry) { counters_ = std::make_unique<Counters>(registry); }

awaitable<RunResult> Triage::run() {
  if (!counters_ || !graph_) co_return co_await run_once();  // unconfigured: the 503, not a run
  const auto started = std::chrono::steady_clock::now();
  core::metrics::Counter* outcome = counters_->run_error;
  std::exception_ptr failure;
  RunResult result;
  try {
    result = co_await run_once();
    outcome = result.mailbox_errors.empty() ? counters_->run_ok : counters_->run_mailbox_errors;
  } catch (const Problem& p) {
    if (p.status() == core::http::Status::conflict) outcome = counters_->run_busy;
    failure = std::current_exception();
  } catch (...) {
    failure = std::current_exception();
  }
  outcome->inc();
  counters_->run_time->observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (failure) std::rethrow_exception(failure);
  co_return result;
}

awaitable<RunResult> Triage::run_once() {
  if (!graph_)
    throw Problem::unavailable(
        "the mail platform is not configured: set GRAPH_TENANT_ID, GRAPH_CLIENT_ID, "
        "GRAPH_CLIENT_SECRET and GRAPH_MAILBOX");
  const std::string run_id = core::random_uuid();
  RunResult result;
  auto every_mailbox = [this, &run_id, &result]() -> awaitable<void> {
    std::vector<std::function<awaitable<void>()>> mailboxes;
    for (const auto& mb : settings_.mailboxes)
      mailboxes.push_back([this, mb, &run_id, &result]() { return run_mailbox(mb, run_id, result); });
    co_await core::async::join_all(executor_, std::move(mailboxes));
  };
  if (!co_await core::db::with_advisory_lock(db_, "mail-triage: processing run", every_mailbox))
    throw Problem::conflict("a processing run is already under way");
  core::log::info(
      "processing run finished",
      {{"run_id", run_id}, {"processed", result.processed}, {"mailbox_errors", result.mailbox_errors.size()}});
  co_return result;
}

awaitable<void> Triage::run_mailbox(const std::string& mailbox, const std::string& run_id, RunResult& result) {
  std::vector<core::graph::MailMessage> unread;
  try {
    const auto since = core::now() - std::chrono::days(settings_.lookback_days);
    unread = co_await graph_->unread_inbox(mailbox, since);
  } catch (const core::graph::GraphError& e) {
    const std::string error = core::secrets::quote(e.what());  // the platform's words: masked, bounded
    core::log::error("mailbox could not be read", {{"mailbox", mailbox}, {"error", error}});
    std::lock_guard lock(results_mutex_);
    result.mailbox_errors.emplace_back(mailbox, error);
    co_return;
  }
  std::vector<std::string> ids, internet_ids, senders, names, subjects, received;
  for (const auto& m : unread) {
    ids.push_back(m.id);
    internet_ids.push_back(m.internet_message_id);
    senders.push_back(m.from_address);
    names.push_back(m.from_name);
    subjects.push_back(m.subject);
    received.push_back(core::format_rfc3339(m.received_at));
  }
  if (!unread.empty())
    co_await db_.query(kRecordPending, mailbox, run_id, ids, internet_ids, senders, names, subjects, received);
  std::vector<std::function<awaitable<void>()>> tasks;
  for (const auto& m : unread)
    tasks.push_back([this, &mailbox, &m, &run_id, &result]() -> awaitable<void> {
      if (!co_await process(mailbox, m, run_id)) co_return;
      std::lock_guard lock(results_mutex_);
      ++result.processed;
    });
  co_await core::async::join_all(executor_, std::move(tasks));
}

awaitable<bool> Triage::process(const std::string& mailbox, const core::graph::MailMessage& message,
                                const std::string& run_id) {
  auto permit = co_await slots_.acquire();
  const auto claimed = co_await db_.query(kClaim, mailbox, message.id, run_id, settings_.processing_timeout_minutes);
  if (claimed.empty()) co_return false;  // logged before: completed, skipped, or another run has it
  const std::string id(claimed.front().text(0));

  std::optional<std::string> sender_type;
  std::string error;
  try {
    const auto sender = co_await db_.query(kSender, message.from_address);
    sender_type = std::string(sender.front().text(0));
    if (*sender_type == "whitelist") {
      co_await db_.query(kSkipped, id, *sender_type, settings_.dry_run);
      if (counters_) counters_->skipped->inc();
      co_return true;
    }
    std::optional<classifier::SenderHints> hints;
    if (!sender.front().is_null(1)) {
      const auto p = json::parse(sender.front().text(1));
      hints = classifier::SenderHints{.display_name = p.value("display_name", ""),
                                      .sender_type = p.value("sender_type", ""),
                                      .email_types = p.value("email_types", std::vector<std::string>{}),
                                      .processing_instructions = p.value("processing_instructions", "")};
    }
    classifier::Mail mail{.from_address = message.from_address,
                          .from_name = message.from_name,
                          .subject = message.subject,
                          .body = message.body,
                          .has_attachments = message.has_attachments,
                          .headers = message.headers};
    const auto c = co_await classifier_->classify(std::move(mail), std::move(hints));
    const std::string action =
        classifier::decide({.label = c.label, .confidence = c.confidence, .sender_type = *sender_type});
    if (!settings_.dry_run) co_await act(action, mailbox, message.id);
    co_await db_.query(kCompleted, id, *sender_type, c.label, c.confidence, c.reasoning, action, c.model,
                       c.prompt_tokens, c.completion_tokens, settings_.dry_run);
    if (counters_) counters_->completed->inc();
    co_return true;
  } catch (const classifier::ClassifierError& e) {
    error = core::secrets::quote(e.what());  // the model's or the platform's words, stored: masked, bounded
  } catch (const core::graph::GraphError& e) {
    error = core::secrets::quote(e.what());
  }
  // The database is not in the catch list: a write that fails there ends the run with its error.
  co_await db_.query(kFailed, id, error, sender_type);
  if (counters_) counters_->failed->inc();
  core::log::warn("message failed", {{"mailbox", mailbox}, {"entry_id", id}, {"error", error}});
  co_return true;
}

awaitable<void> Triage::act(const std::string& action, const std::string& mailbox, const std::string& id) {
  if (action == "mark_read")
    co_await graph_->mark_read(mailbox, id);
  else if (action == "archive")
    co_await graph_->move(mailbox, id, "archive");
  else if (action == "junk")
    co_await graph_->move(mailbox, id, "junkemail");
  else if (action == "delete")
    co_await graph_->move(mailbox, id, "deleteditems");
  else if (action == "review")
    co_await graph_->flag(mailbox, id);
  // keep: nothing to do
}

void Triage::start_schedule() {
  if (settings_.interval.count() <= 0 || !graph_) return;
  schedule_ = core::async::Schedule::start(
      executor_, std::chrono::duration_cast<std::chrono::milliseconds>(settings_.interval),
      [self = shared_from_this()]() -> awaitable<void> { co_await self->run(); }, "mail processing");
}

void Triage::stop_schedule() {
  if (schedule_) schedule_->stop();
}

}  // namespace mail_triage::pipeline
