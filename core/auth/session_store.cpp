#include "core/auth/session_store.hpp"

#include "core/async/sleep.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"

namespace core::auth {

using boost::asio::awaitable;

namespace {

// Longer is no token of ours: answered without a query.
constexpr std::size_t kMaxToken = 100;

// Replaces every `{name}` in `sql` by its value.
std::string fill(std::string sql, std::initializer_list<std::pair<std::string_view, std::string_view>> names) {
  for (const auto& [name, value] : names) {
    const std::string mark = "{" + std::string(name) + "}";
    for (auto at = sql.find(mark); at != std::string::npos; at = sql.find(mark, at + value.size()))
      sql.replace(at, mark.size(), value);
  }
  return sql;
}

// $1 token hash, $2 idle minutes. The touch is a separate CTE so the lookup sees the row as it
// was; it writes only when the last write is more than a minute old. After the lookup's columns:
// the subject, and for how long the answer stays as it is (for a cache): until the session expires
// or its last-seen time is due to be written again, a minute after the last write.
constexpr std::string_view kFind = R"sql(
  WITH live AS (
    SELECT {subject} AS subject, last_seen_at, expires_at FROM {sessions}
    WHERE token_hash = $1 AND expires_at > now() AND last_seen_at > now() - make_interval(mins => $2::integer)),
  touched AS (
    UPDATE {sessions} SET last_seen_at = now()
    WHERE token_hash = $1 AND EXISTS (SELECT 1 FROM live WHERE live.last_seen_at < now() - interval '1 minute')
    RETURNING last_seen_at),
  looked AS ({lookup})
  SELECT looked.*, live.subject::text AS session_subject,
         floor(1000 * extract(epoch FROM least(live.expires_at, coalesce((SELECT last_seen_at FROM touched),
                                                                          live.last_seen_at) + interval '1 minute')
                                          - now()))::bigint AS session_fresh_ms
  FROM looked CROSS JOIN live
)sql";

// $1 token hash, $2 subject, $3 address, $4 lifetime hours, $5 idle minutes.
constexpr std::string_view kStart = R"sql(
  WITH swept AS (
    DELETE FROM {sessions} WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(mins => $5::integer))
  INSERT INTO {sessions} (token_hash, {subject}, address, expires_at)
  VALUES ($1, $2, $3, now() + make_interval(hours => $4::integer))
)sql";

constexpr std::string_view kEnd = "DELETE FROM {sessions} WHERE token_hash = $1";

// $1 the key (account, or address without accounts), $2 address, $3 window minutes.
constexpr std::string_view kCount = R"sql(
  SELECT (SELECT count(*) FROM {failures} WHERE {key} = $1 AND failed_at > now() - make_interval(mins => $3::integer)),
         (SELECT count(*) FROM {failures} WHERE address = $2 AND failed_at > now() - make_interval(mins => $3::integer))
)sql";

constexpr std::string_view kFailedPerAccount = "INSERT INTO {failures} ({account}, address) VALUES ($1, $2)";
constexpr std::string_view kFailedPerAddress = "INSERT INTO {failures} (address) VALUES ($1)";

// A success forgives the key's failures and sweeps those no window can count any more.
constexpr std::string_view kSucceeded =
    "DELETE FROM {failures} WHERE {key} = $1 OR failed_at < now() - interval '1 day'";

}  // namespace

std::string Refusal::message() const {
  const auto minutes = std::chrono::ceil<std::chrono::minutes>(retry_after).count();
  return "too many failed sign-ins; try again in " + std::to_string(minutes) + " minutes";
}

core::http::Problem Refusal::problem() const {
  return core::http::Problem(core::http::Status::too_many_requests, "too-many-sign-ins", message())
      .with_header(core::http::bhttp::field::retry_after, std::to_string(retry_after.count()));
}

SessionStore::SessionStore(core::db::Pool& db, SessionTables tables, SessionPolicy policy,
                           std::shared_ptr<SessionCache> cache)
    : db_(db), tables_(std::move(tables)), policy_(std::move(policy)), cache_(std::move(cache)) {
  const std::string key = per_account() ? tables_.account : "address";
  const std::initializer_list<std::pair<std::string_view, std::string_view>> names{{"sessions", tables_.sessions},
                                                                                   {"subject", tables_.subject},
                                                                                   {"failures", tables_.failures},
                                                                                   {"account", tables_.account},
                                                                                   {"key", key},
                                                                                   {"lookup", tables_.lookup}};
  find_sql_ = fill(std::string(kFind), names);
  start_sql_ = fill(std::string(kStart), names);
  end_sql_ = fill(std::string(kEnd), names);
  count_sql_ = fill(std::string(kCount), names);
  failed_sql_ = fill(std::string(per_account() ? kFailedPerAccount : kFailedPerAddress), names);
  succeeded_sql_ = fill(std::string(kSucceeded), names);
}

awaitable<core::db::Result> SessionStore::find(std::optional<std::string> token) {
  if (!token || token->empty() || token->size() > kMaxToken) co_return core::db::Result();
  const std::string token_hash = core::sha256_hex(*token);
  if (!cache_) co_return co_await db_.query(find_sql_, token_hash, static_cast<int>(policy_.idle.count()));
  if (auto cached = cache_->get(token_hash)) co_return std::move(*cached);
  const auto ticket = cache_->ticket();
  auto rows = co_await db_.query(find_sql_, token_hash, static_cast<int>(policy_.idle.count()));
  if (!rows.empty()) {
    const auto row = rows.front();
    cache_->put(ticket, token_hash, row.get<std::string>("session_subject"), rows,
                std::chrono::milliseconds(row.get<std::int64_t>("session_fresh_ms")));
  }
  co_return rows;
}

awaitable<std::string> SessionStore::start(std::string subject, std::string address) {
  std::string token = core::random_base64url(32);
  const std::string token_hash = core::sha256_hex(token);
  co_await db_.query(start_sql_, token_hash, subject, address, static_cast<int>(policy_.lifetime.count()),
                     static_cast<int>(policy_.idle.count()));
  co_return token;
}

awaitable<void> SessionStore::end(std::string token) {
  const std::string token_hash = core::sha256_hex(token);
  co_await db_.query(end_sql_, token_hash);
  if (cache_) cache_->forget_token_hash(token_hash);
}

void SessionStore::forget_subject(const std::string& subject) {
  if (cache_) cache_->forget_subject(subject);
}

awaitable<std::optional<Refusal>> SessionStore::admit(std::string account, std::string address) {
  const auto counts =
      co_await db_.query(count_sql_, key(account, address), address, static_cast<int>(policy_.failure_window.count()));
  const auto by_key = counts.front().get<std::int64_t>(0), by_address = counts.front().get<std::int64_t>(1);
  if ((per_account() && by_key >= policy_.refuse_account_after) || by_address >= policy_.refuse_address_after)
    co_return Refusal{.retry_after = policy_.failure_window};
  if (const auto wait = policy_.slowdown.delay(by_key); wait.count() > 0) co_await core::async::sleep_for(wait);
  co_return std::nullopt;
}

awaitable<void> SessionStore::failed(std::string account, std::string address) {
  if (per_account())
    co_await db_.query(failed_sql_, account, address);
  else
    co_await db_.query(failed_sql_, address);
}

awaitable<void> SessionStore::succeeded(std::string account, std::string address) {
  co_await db_.query(succeeded_sql_, key(account, address));
}

}  // namespace core::auth
