#include "mail_triage/api/whitelist.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "mail_triage/api/fields.hpp"

namespace mail_triage {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using core::http::Status;

namespace {

// An entry renders as whitelist_entry_json() (migration 0008).
// Active entries, including expired ones (expires_at passed)...
constexpr std::string_view kListActiveAndExpired = R"sql(
  SELECT json_build_object('items', coalesce(
    json_agg(whitelist_entry_json(w) ORDER BY coalesce(w.email_address, w.domain), w.domain, w.id), '[]'::json))
  FROM whitelist w
  WHERE w.is_active)sql";
// ...or not: two statements, each with its own plan, rather than a `$1 OR ...` filter.
const std::string kListActiveEntries =
    std::string(kListActiveAndExpired) + " AND (w.expires_at IS NULL OR w.expires_at > now())";

// An expired entry no longer counts as an active duplicate: it is retired before the insert.
constexpr std::string_view kRetireExpiredDuplicate = R"sql(
  UPDATE whitelist SET is_active = false, updated_at = now()
  WHERE is_active AND expires_at <= now()
    AND coalesce(email_address, '') = coalesce($1, '') AND coalesce(domain, '') = coalesce($2, '')
)sql";

constexpr std::string_view kInsert = R"sql(
  INSERT INTO whitelist AS w (email_address, domain, description, added_by, expires_at)
  VALUES ($1, $2, $3, $4, $5::timestamptz)
  RETURNING whitelist_entry_json(w)
)sql";

constexpr std::string_view kDeactivateEntry = R"sql(
  UPDATE whitelist w SET is_active = false,
    updated_at = CASE WHEN w.is_active THEN now() ELSE w.updated_at END
  WHERE w.id = $1
  RETURNING whitelist_entry_json(w)
)sql";

struct EntryInput {
  std::optional<std::string> email_address, domain;
  std::string description, added_by;
  std::optional<std::string> expires_at;  // RFC 3339, UTC
};

// At least one of email_address and domain; expires_at, when given, lies in the future.
EntryInput read_entry(const std::string& body_text) {
  const auto body = core::json::parse_object(body_text);
  core::json::BodyReader in(body);
  EntryInput e{
      .email_address = in.optional_string("email_address", fields::email_address),
      .domain = in.optional_string("domain", fields::domain),
      .description = in.optional_string("description", fields::free_text).value_or(""),
      .added_by = in.optional_string("added_by", fields::display_name).value_or(""),
  };
  const bool named =
      (in.has("email_address") && !body["email_address"].is_null()) || (in.has("domain") && !body["domain"].is_null());
  if (!named) {
    in.add("email_address", "is required when domain is absent");
    in.add("domain", "is required when email_address is absent");
  }
  if (const auto t = in.optional_timestamp("expires_at")) {
    if (*t <= std::chrono::system_clock::now())
      in.add("expires_at", "must lie in the future");
    else
      e.expires_at = core::format_rfc3339(*t);
  }
  in.finish();
  return e;
}

std::string entry_id_of(const Request& req) { return std::string(req.param("entry_id")); }

std::string describe(const EntryInput& e) {
  if (e.email_address && e.domain) return *e.email_address + " with domain " + *e.domain;
  return e.email_address ? *e.email_address : "domain " + *e.domain;
}

}  // namespace

void install_whitelist_routes(core::app::Context& ctx) {
  auto& db = ctx.db;

  ctx.router.get("/api/v1/whitelist", [&db](Request& req) -> awaitable<Response> {
    core::json::QueryReader in(req.query);
    const bool include_expired = in.boolean("include_expired", false);
    in.finish();
    co_return co_await core::app::json_document(db, include_expired ? kListActiveAndExpired : kListActiveEntries);
  });

  ctx.router.post("/api/v1/whitelist", [&db](Request& req) -> awaitable<Response> {
    const EntryInput e = read_entry(req.body);
    auto tx = co_await db.begin();
    co_await tx.query(kRetireExpiredDuplicate, e.email_address, e.domain);
    core::db::Result rows;
    try {
      rows = co_await tx.query(kInsert, e.email_address, e.domain, e.description, e.added_by, e.expires_at);
    } catch (const core::db::Error& err) {
      if (err.unique_violation()) throw Problem::conflict(describe(e) + " is already whitelisted");
      throw;
    }
    co_await tx.commit();
    co_return Response::json_text(std::string(rows.front().text(0)), Status::created);
  });

  ctx.router.del("/api/v1/whitelist/{entry_id:uuid}", [&db](Request& req) {
    return core::app::json_resource(db, {.missing = Problem::not_found("no whitelist entry " + entry_id_of(req))},
                                    kDeactivateEntry, entry_id_of(req));
  });
}

}  // namespace mail_triage
