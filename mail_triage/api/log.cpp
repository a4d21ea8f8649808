#include "mail_triage/api/log.hpp"

#include "core/async/batcher.hpp"
#include "core/db/errors.hpp"
#include "core/db/pool.hpp"
#include "core/db/statement.hpp"
#include "core/http/message.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"

#include <unordered_map>

namespace mail_triage {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;

namespace {

const std::vector<std::string> kStatuses{"pending", "processing", "completed", "failed", "skipped"};
const std::vector<std::string> kSenderTypes{"customer", "vendor", "whitelist", "unknown"};

struct LogFilter {
  std::optional<std::string> status, sender_type, classification, q;
  std::int64_t limit, offset;
};

LogFilter read_filter(const core::http::Query& query) {
  core::json::QueryReader in(query);
  LogFilter f{
      .status = in.optional_string("status", {.one_of = kStatuses}),
      .sender_type = in.optional_string("sender_type", {.one_of = kSenderTypes}),
      .classification = in.optional_string("classification", {.min_length = 1, .max_length = 100}),
      .q = in.optional_string("q", {.min_length = 1, .max_length = 200}),
      .limit = in.integer("limit", 50, {.min = 1, .max = 200}),
      .offset = in.integer("offset", 0, {.min = 0, .max = 1'000'000'000}),
  };
  in.finish();
  return f;
}

// GET /api/v1/log is composed from the filters present, so each combination is its own
// prepared statement with its own plan (at most 16): an absent filter never becomes an
// `$n IS NULL OR ...` that a generic plan cannot use an index for. Without `q` the total comes
// from email_log_counts (migration 0009); with `q` it counts the trigram matches.
// An entry renders as email_log_json() (migration 0013).
core::db::Composed compose_list(const LogFilter& f) {
  using core::db::restrict;
  core::db::Composed st;
  std::string rows_where, counts_where;
  auto equal = [&](const std::optional<std::string>& value, const std::string& row_column,
                   const std::string& count_column) {
    if (!value) return;
    const std::string n = st.bind(*value);
    restrict(rows_where, row_column + " = " + n);
    restrict(counts_where, count_column + " = " + n);
  };
  equal(f.status, "e.status", "c.status");
  equal(f.sender_type, "e.sender_type", "c.sender_type");
  equal(f.classification, "e.llm_classification", "c.classification");
  if (f.q) {
    const std::string n = st.bind(core::db::substring_pattern(*f.q));
    restrict(rows_where, "(e.sender_address ILIKE " + n + " OR e.subject ILIKE " + n + ")");
  }
  const std::string limit = st.bind(f.limit);
  const std::string offset = st.bind(f.offset);
  const std::string page =
      " ORDER BY received_at DESC, id DESC LIMIT " + limit + "::bigint OFFSET " + offset + "::bigint";
  const std::string items =
      "coalesce((SELECT json_agg(email_log_json(p) ORDER BY p.received_at DESC, p.id DESC) FROM (";
  if (f.q) {
    // The trigram search runs once: its matches give the total, and the page's rows are read last.
    st.sql = "WITH matching AS MATERIALIZED (SELECT e.id, e.received_at FROM email_log e" + rows_where +
             ") SELECT json_build_object('total', (SELECT count(*) FROM matching), 'items', " + items +
             "SELECT e.* FROM (SELECT id FROM matching" + page +
             ") m JOIN email_log e ON e.id = m.id) p), '[]'::json))";
  } else {
    st.sql = "SELECT json_build_object('total', (SELECT coalesce(sum(c.n), 0) FROM email_log_counts c" + counts_where +
             "), 'items', " + items + "SELECT * FROM email_log e" + rows_where + page + ") p), '[]'::json))";
  }
  return st;
}

// The entries of several ids, each with its id as text (migration 0014, which says why a function).
constexpr std::string_view kGetEntries = R"sql(
  SELECT id, entry FROM email_log_entries($1::uuid[])
)sql";

// GET /api/v1/log/{entry_id}'s reads, merged (core/async/batcher.hpp): a read that finds none under
// way runs at once, alone; those that arrive meanwhile go together in the next statement. A
// statement's fixed cost (Bind, Execute, the executor's start) is most of the database's work
// for one row, so merged reads cost the machine about a fifth less (bench/RESULTS.md, 2026-11-29).
class EntryReads {
 public:
  explicit EntryReads(core::db::Pool& db)
      : db_(db),
        batches_(
            kMaxBatch, [this](std::vector<std::string> ids) { return run(std::move(ids)); },
            core::db::request_bound_passed_error) {}

  // The entry's JSON, or nothing; `id` in lower case, as the database writes it. Within the
  // caller's bound for the database, as any statement (core/async/batcher.hpp).
  awaitable<std::optional<std::string>> find(std::string id) { return batches_.submit(std::move(id)); }

 private:
  static constexpr std::size_t kMaxBatch = 100;

  awaitable<std::vector<std::optional<std::string>>> run(std::vector<std::string> ids) {
    const auto rows = co_await db_.query(kGetEntries, ids);
    std::unordered_map<std::string_view, std::string_view> found;
    for (const auto& row : rows) found.emplace(row.text(0), row.text(1));
    std::vector<std::optional<std::string>> entries;
    entries.reserve(ids.size());
    for (const auto& id : ids) {
      const auto it = found.find(id);
      entries.push_back(it == found.end() ? std::nullopt : std::optional<std::string>(it->second));
    }
    co_return entries;
  }

  core::db::Pool& db_;
  core::async::Batcher<std::string, std::optional<std::string>> batches_;
};

}  // namespace

void install_log_routes(core::app::Context& ctx) {
  auto& db = ctx.db;

  ctx.router.get("/api/v1/log", [&db](Request& req) -> awaitable<Response> {
    core::db::Composed st = compose_list(read_filter(req.query));
    const auto rows = co_await db.execute(st.sql, std::move(st.params));
    co_return Response::json_text(std::string(rows.front().text(0)));
  });

  auto entries = std::make_shared<EntryReads>(db);
  ctx.router.get("/api/v1/log/{entry_id:uuid}", [entries](Request& req) -> awaitable<Response> {
    const std::string id = core::to_lower(req.param("entry_id"));
    auto entry = co_await entries->find(id);
    if (!entry) throw Problem::not_found("no log entry " + id);
    co_return Response::json_text(std::move(*entry));
  });
}

}  // namespace mail_triage
