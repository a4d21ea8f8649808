#include "ops_console/mailsec/counts.hpp"

#include "core/log/log.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "ops_console/sync_history.hpp"

#include <map>

namespace ops_console::mailsec {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr int kPageSize = 500;
constexpr int kMostPages = 100'000;  // a stream that never catches up is a fault, not a reason to spin

// The start of the UTC day to re-read from: that of the last pull, or kFirstPullDays back.
constexpr std::string_view kFrom = R"sql(
  SELECT to_char(date_trunc('day', coalesce($1::timestamptz, now() - make_interval(days => $2))
                                   AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS".000Z"'),
         to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), now()::text
)sql";

// $1: [{user, day, sent, received}]: those days' counts, replaced.
constexpr std::string_view kStore = R"sql(
  INSERT INTO mailsec_message_counts AS c (user_email, day, sent, received, updated_at)
  SELECT r.user, r.day, r.sent, r.received, now()
  FROM jsonb_to_recordset($1::jsonb) AS r("user" text, day date, sent integer, received integer)
  ON CONFLICT (user_email, day) DO UPDATE SET sent = EXCLUDED.sent, received = EXCLUDED.received, updated_at = now()
)sql";

// The spec's 18 months, rolling.
constexpr std::string_view kRetain = R"sql(
  WITH gone AS (DELETE FROM mailsec_message_counts
                WHERE day < ((now() AT TIME ZONE 'UTC')::date - interval '18 months')::date RETURNING 1)
  SELECT count(*) FROM gone
)sql";

std::string day_of(std::int64_t ms) {
  return core::format_rfc3339(core::Timestamp(std::chrono::milliseconds(ms))).substr(0, 10);
}

}  // namespace

MessageCounts::MessageCounts(core::db::Pool& db, std::shared_ptr<MimecastClient> client)
    : db_(db), client_(std::move(client)) {}

awaitable<void> MessageCounts::pull() {
  const std::string mark = "mailsec:counts:" + client_->tenant().name;
  const auto last = co_await read_watermark(db_, mark);
  const auto range = co_await db_.query(kFrom, last, static_cast<std::int64_t>(kFirstPullDays));
  const std::string from(range.front().text(0)), to(range.front().text(1)), now(range.front().text(2));

  std::map<std::pair<std::string, std::string>, std::pair<std::int64_t, std::int64_t>> counts;
  std::string query = "/siem/v1/events/cg?types=receipt&pageSize=" + std::to_string(kPageSize) +
                      "&dateRangeStartsAt=" + core::url_encode(from) + "&dateRangeEndsAt=" + core::url_encode(to);
  std::int64_t events = 0;
  for (int page = 0;; ++page) {
    if (page == kMostPages) throw MailsecError("the mail-security event stream never caught up");
    const json answer = co_await client_->get(query);
    const auto value = answer.find("value");
    if (value == answer.end() || !value->is_array())
      throw MailsecError("the mail-security event stream answered without a value list");
    for (const auto& e : *value) {
      if (!e.is_object() || e.value("eventType", "receipt") != "receipt" || !e.contains("timestamp") ||
          !e["timestamp"].is_number_integer())
        continue;
      ++events;
      const std::string day = day_of(e["timestamp"].get<std::int64_t>());
      const std::string direction = e.value("direction", "");
      const auto address = [&](const char* key) {
        return e.contains(key) && e[key].is_string() ? core::to_lower(e[key].get<std::string>()) : std::string();
      };
      if (direction == "Outbound" || direction == "Internal")
        if (const auto sender = address("senderEnvelope"); !sender.empty()) ++counts[{sender, day}].first;
      if (direction == "Inbound" || direction == "Internal")
        if (const auto recipient = address("recipients"); !recipient.empty()) ++counts[{recipient, day}].second;
    }
    const auto next = answer.find("@nextPage");
    if (answer.value("isCaughtUp", true) || value->empty() || next == answer.end() || !next->is_string()) break;
    query = "/siem/v1/events/cg?types=receipt&pageSize=" + std::to_string(kPageSize) +
            "&nextPage=" + core::url_encode(next->get<std::string>());
  }
  json rows = json::array();
  for (const auto& [key, value] : counts)
    rows.push_back({{"user", key.first}, {"day", key.second}, {"sent", value.first}, {"received", value.second}});
  if (!rows.empty()) co_await db_.query(kStore, rows.dump());
  co_await advance_watermark(db_, mark, now);
  core::log::info("mail-security message counts pulled",
                  {{"tenant", client_->tenant().name}, {"events", events}, {"user_days", rows.size()}});
}

awaitable<void> MessageCounts::retain() {
  const auto gone = co_await db_.query(kRetain);
  if (const auto n = gone.front().get<std::int64_t>(0); n > 0)
    core::log::info("mail-security message counts past 18 months deleted", {{"days", n}});
}

}  // namespace ops_console::mailsec
