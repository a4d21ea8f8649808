#include "mail_triage/pipeline/purge.hpp"

#include "core/async/join.hpp"
#include "core/db/advisory_lock.hpp"
#include "core/http/problem.hpp"
#include "core/log/log.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

#include <algorithm>
#include <mutex>

namespace mail_triage::pipeline {

using boost::asio::awaitable;
using core::http::Problem;

namespace {

constexpr std::string_view kActiveRules = R"sql(
  SELECT r.email_address, r.older_than_days, r.id, sender_type_of(r.email_address) = 'whitelist'
  FROM purge_rules r
  WHERE r.is_active
  ORDER BY r.email_address
)sql";

constexpr std::string_view kIsWhitelisted = "SELECT sender_type_of($1) = 'whitelist'";

// Every message an execute sets out to delete is on the audit before the platform is asked.
constexpr std::string_view kRecordPendingPurge = R"sql(
  INSERT INTO purge_deletions (run_id, mailbox, message_id, sender_address, subject, received_at,
                               older_than_days, purge_rule_id)
  SELECT $1, m.mailbox, m.id, m.sender, m.subject, m.received, m.days, nullif(m.rule, '')::uuid
  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::integer[], $8::text[])
       AS m(mailbox, id, sender, subject, received, days, rule)
)sql";

constexpr std::string_view kDeleted = R"sql(
  UPDATE purge_deletions SET status = 'deleted', deleted_at = now()
  WHERE run_id = $1 AND mailbox = $2 AND message_id = $3
)sql";

constexpr std::string_view kPurgeFailed = R"sql(
  UPDATE purge_deletions SET status = 'failed', error = $4
  WHERE run_id = $1 AND mailbox = $2 AND message_id = $3
)sql";

}  // namespace

struct Purge::Target {
  std::string address;
  int days = 0;
  std::string rule_id;  // empty: a one-off sender purge
  core::Timestamp before{};
};

struct Purge::Found {
  std::size_t target = 0;  // index into the targets
  std::string mailbox;
  core::graph::MailMessage message;
  bool deleted = false;
};

int PurgeResult::total() const {
  int n = 0;
  for (const auto& row : rows) n += row.count;
  return n;
}

bool PurgeResult::nothing_searched() const {
  const auto failed =
      std::count_if(errors.begin(), errors.end(), [](const PurgeError& e) { return e.message_id.empty(); });
  return listings > 0 && failed == listings;
}

Purge::Purge(boost::asio::any_io_executor executor, core::db::Pool& db, std::shared_ptr<core::graph::GraphClient> graph,
             std::vector<std::string> mailboxes)
    : executor_(executor), db_(db), graph_(std::move(graph)), mailboxes_(std::move(mailboxes)) {}

awaitable<PurgeResult> Purge::run(PurgeRequest request) {
  if (!graph_)
    throw Problem::unavailable(
        "the mail platform is not configured: set GRAPH_TENANT_ID, GRAPH_CLIENT_ID, "
        "GRAPH_CLIENT_SECRET and GRAPH_MAILBOX");
  PurgeResult result;
  auto purge = [this, &request, &result]() -> awaitable<void> {
    const auto targets = co_await this->targets(request, result);
    auto found = co_await find(targets, result);
    if (request.execute) co_await remove(targets, found, result);
    // One row per target; the subjects are those of the messages counted, newest first, distinct.
    std::sort(found.begin(), found.end(),
              [](const Found& a, const Found& b) { return a.message.received_at > b.message.received_at; });
    for (const auto& t : targets) result.rows.push_back({.address = t.address, .days = t.days});
    for (const auto& f : found) {
      if (request.execute && !f.deleted) continue;
      auto& row = result.rows[f.target];
      ++row.count;
      if (row.subjects.size() < kPurgeSubjectsPerRow &&
          std::find(row.subjects.begin(), row.subjects.end(), f.message.subject) == row.subjects.end())
        row.subjects.push_back(f.message.subject);
    }
  };
  if (!request.execute) {
    co_await purge();
    co_return result;
  }
  if (!co_await core::db::with_advisory_lock(db_, "mail-triage: purge", purge))
    throw Problem::conflict("a purge is already under way");
  core::log::info("purge executed", {{"deleted", result.total()}, {"errors", result.errors.size()}});
  co_return result;
}

awaitable<std::vector<Purge::Target>> Purge::targets(const PurgeRequest& request, PurgeResult& result) {
  const auto before = [now = core::now()](int days) { return now - std::chrono::days(days); };
  std::vector<Target> out;
  if (request.sender) {
    const auto whitelisted = co_await db_.query(kIsWhitelisted, *request.sender);
    if (whitelisted.front().get<bool>(0))
      result.excluded.push_back(*request.sender);
    else
      out.push_back({.address = *request.sender, .days = request.days, .before = before(request.days)});
    co_return out;
  }
  const auto rules = co_await db_.query(kActiveRules);
  for (const auto& r : rules) {
    const std::string address(r.text(0));
    if (r.get<bool>(3)) {
      result.excluded.push_back(address);
      continue;
    }
    const int days = r.get<int>(1);
    out.push_back({.address = address, .days = days, .rule_id = std::string(r.text(2)), .before = before(days)});
  }
  co_return out;
}

awaitable<std::vector<Purge::Found>> Purge::find(const std::vector<Target>& targets, PurgeResult& result) {
  std::vector<Found> found;
  std::mutex mutex;  // the listings run on several threads
  std::vector<std::function<awaitable<void>()>> listings;
  for (std::size_t i = 0; i < targets.size(); ++i)
    for (const auto& mb : mailboxes_)
      listings.push_back([this, i, mb, &targets, &found, &result, &mutex]() -> awaitable<void> {
        const Target& t = targets[i];
        try {
          auto messages = co_await graph_->from_sender_before(mb, t.address, t.before);
          std::lock_guard lock(mutex);
          for (auto& m : messages) {
            // The platform filtered on both; checked again because what follows deletes.
            if (m.from_address != t.address || m.received_at >= t.before) continue;
            found.push_back({.target = i, .mailbox = mb, .message = std::move(m)});
          }
        } catch (const core::graph::GraphError& e) {
          const std::string error = core::secrets::quote(e.what());  // the platform's words: masked, bounded
          core::log::error("purge listing failed", {{"mailbox", mb}, {"sender", t.address}, {"error", error}});
          std::lock_guard lock(mutex);
          result.errors.push_back({.mailbox = mb, .address = t.address, .error = error});
        }
      });
  result.listings = static_cast<int>(listings.size());
  co_await core::async::join_all(executor_, std::move(listings));
  co_return found;
}

awaitable<void> Purge::remove(const std::vector<Target>& targets, std::vector<Found>& found, PurgeResult& result) {
  if (found.empty()) co_return;
  const std::string run_id = core::random_uuid();
  std::vector<std::string> mailboxes, ids, senders, subjects, received, days, rules;
  for (const auto& f : found) {
    const Target& t = targets[f.target];
    mailboxes.push_back(f.mailbox);
    ids.push_back(f.message.id);
    senders.push_back(t.address);
    subjects.push_back(f.message.subject);
    received.push_back(core::format_rfc3339(f.message.received_at));
    days.push_back(std::to_string(t.days));
    rules.push_back(t.rule_id);
  }
  co_await db_.query(kRecordPendingPurge, run_id, mailboxes, ids, senders, subjects, received, days, rules);
  std::mutex mutex;
  std::vector<std::function<awaitable<void>()>> deletions;
  for (auto& f : found)
    deletions.push_back([this, &f, &run_id, &result, &mutex]() -> awaitable<void> {
      std::string error;
      try {
        co_await graph_->remove(f.mailbox, f.message.id);
        f.deleted = true;
      } catch (const core::graph::GraphError& e) {
        error = core::secrets::quote(e.what());  // stored and answered: masked, bounded
      }
      if (f.deleted) {
        co_await db_.query(kDeleted, run_id, f.mailbox, f.message.id);
        co_return;
      }
      co_await db_.query(kPurgeFailed, run_id, f.mailbox, f.message.id, error);
      std::lock_guard lock(mutex);
      result.errors.push_back(
          {.mailbox = f.mailbox, .address = f.message.from_address, .message_id = f.message.id, .error = error});
    });
  co_await core::async::join_all(executor_, std::move(deletions));
}

}  // namespace mail_triage::pipeline
