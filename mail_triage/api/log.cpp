#include "mail_triage/api/log.hpp"

#include "core/http/problem.hpp"
#include "core/json/validate.hpp"

namespace mail_triage {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;

namespace {

const std::vector<std::string> kStatuses{"pending", "processing", "completed", "failed", "skipped"};
const std::vector<std::string> kSenderTypes{"customer", "vendor", "whitelist", "unknown"};

// Every filter is optional (NULL = no filter); newest first; one statement for page and total.
constexpr std::string_view kListLog = R"sql(
  WITH matching AS (
    SELECT * FROM email_log e
    WHERE ($1::text IS NULL OR e.status = $1)
      AND ($2::text IS NULL OR e.sender_type = $2)
      AND ($3::text IS NULL OR e.llm_classification = $3)
      AND ($4::text IS NULL OR e.sender_address ILIKE $4 OR e.subject ILIKE $4)
  ), page AS (
    SELECT * FROM matching ORDER BY received_at DESC, id DESC LIMIT $5 OFFSET $6
  )
  SELECT json_build_object(
    'total', (SELECT count(*) FROM matching),
    'items', coalesce((SELECT json_agg(email_log_json(p) ORDER BY p.received_at DESC, p.id DESC) FROM page p),
                      '[]'::json))
)sql";

constexpr std::string_view kGetEntry = R"sql(
  SELECT email_log_json(e) FROM email_log e WHERE e.id = $1
)sql";

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

}  // namespace

std::string substring_pattern(std::string_view q) {
  std::string out = "%";
  for (char c : q) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

void install_log_routes(core::app::Context& ctx) {
  auto& db = ctx.db;

  ctx.router.get("/api/v1/log", [&db](Request& req) -> awaitable<Response> {
    const LogFilter f = read_filter(req.query);
    const std::optional<std::string> pattern = f.q ? std::optional(substring_pattern(*f.q)) : std::nullopt;
    const auto rows = co_await db.query(kListLog, f.status, f.sender_type, f.classification, pattern, f.limit, f.offset);
    co_return Response::json_text(std::string(rows.front().text(0)));
  });

  ctx.router.get("/api/v1/log/{entry_id:uuid}", [&db](Request& req) -> awaitable<Response> {
    const std::string id(req.param("entry_id"));
    const auto rows = co_await db.query(kGetEntry, id);
    if (rows.empty()) throw Problem::not_found("no log entry " + id);
    co_return Response::json_text(std::string(rows.front().text(0)));
  });
}

}  // namespace mail_triage
