#include "mail_triage/api/purge_rules.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "mail_triage/api/fields.hpp"

namespace mail_triage {

using boost::asio::awaitable;
using core::app::json_document;
using core::app::json_resource;
using core::http::Problem;
using core::http::Request;
using core::http::Response;

namespace {

// A rule renders as purge_rule_json() (migration 0008).
constexpr std::string_view kListAll = R"sql(
  SELECT json_build_object('items', coalesce(json_agg(purge_rule_json(r) ORDER BY r.email_address), '[]'::json))
  FROM purge_rules r
)sql";

// One rule per address: creates it, or updates and reactivates the existing one.
constexpr std::string_view kUpsertRule = R"sql(
  INSERT INTO purge_rules AS r (email_address, display_name, older_than_days, notes)
  VALUES ($1, $2, $3, $4)
  ON CONFLICT (email_address) DO UPDATE SET
    display_name = EXCLUDED.display_name,
    older_than_days = EXCLUDED.older_than_days,
    notes = EXCLUDED.notes,
    is_active = true,
    updated_at = now()
  RETURNING purge_rule_json(r), (xmax = 0) AS created
)sql";

// Partial update: a NULL parameter keeps the field; notes is nullable, so $5 says whether it was sent.
constexpr std::string_view kPatch = R"sql(
  UPDATE purge_rules r SET
    email_address = coalesce($2, r.email_address),
    display_name = coalesce($3, r.display_name),
    older_than_days = coalesce($4::integer, r.older_than_days),
    notes = CASE WHEN $5::boolean THEN $6 ELSE r.notes END,
    is_active = coalesce($7::boolean, r.is_active),
    updated_at = now()
  WHERE r.id = $1
  RETURNING purge_rule_json(r)
)sql";

constexpr std::string_view kDeactivateRule = R"sql(
  UPDATE purge_rules r SET is_active = false,
    updated_at = CASE WHEN r.is_active THEN now() ELSE r.updated_at END
  WHERE r.id = $1
  RETURNING purge_rule_json(r)
)sql";

const core::json::IntRule kDays{.min = 1, .max = 3650};

struct RuleInput {
  std::string email_address, display_name;
  std::int64_t older_than_days;
  std::optional<std::string> notes;
};

// POST: email_address and older_than_days required; display_name and notes optional.
RuleInput read_rule(const std::string& body_text) {
  const auto body = core::json::parse_object(body_text);
  core::json::BodyReader in(body);
  RuleInput r{
      .email_address = in.string("email_address", fields::email_address),
      .display_name = in.optional_string("display_name", fields::display_name).value_or(""),
      .older_than_days = in.integer("older_than_days", kDays),
      .notes = in.optional_string("notes", fields::free_text),
  };
  in.finish();
  return r;
}

// PUT: every field optional; only notes may be null.
struct RulePatch {
  core::json::Patch<std::string> email_address, display_name;
  core::json::Patch<std::int64_t> older_than_days;
  core::json::Patch<std::string> notes;
  core::json::Patch<bool> is_active;
};

RulePatch read_patch(const std::string& body_text) {
  const auto body = core::json::parse_object(body_text);
  core::json::BodyReader in(body);
  RulePatch p{
      .email_address = in.patch_string("email_address", fields::email_address, false),
      .display_name = in.patch_string("display_name", fields::display_name, false),
      .older_than_days = in.patch_integer("older_than_days", kDays),
      .notes = in.patch_string("notes", fields::free_text),
      .is_active = in.patch_boolean("is_active"),
  };
  in.finish();
  return p;
}

std::string rule_id_of(const Request& req) { return std::string(req.param("rule_id")); }

Problem no_rule(const std::string& id) { return Problem::not_found("no purge rule " + id); }

}  // namespace

void install_purge_rule_routes(core::app::Context& ctx) {
  auto& db = ctx.db;

  ctx.router.get("/api/v1/purge-rules", [&db](Request&) { return json_document(db, kListAll); });

  ctx.router.post("/api/v1/purge-rules", [&db](Request& req) -> awaitable<Response> {
    const RuleInput r = read_rule(req.body);
    const auto rows = co_await db.query(kUpsertRule, r.email_address, r.display_name, r.older_than_days, r.notes);
    co_return core::app::upserted(rows);
  });

  ctx.router.put("/api/v1/purge-rules/{rule_id:uuid}", [&db](Request& req) {
    const RulePatch p = read_patch(req.body);
    const std::string address = p.email_address.value.value_or("");
    return json_resource(
        db,
        {.missing = no_rule(rule_id_of(req)),
         .duplicate = Problem::conflict("email_address " + address + " belongs to another purge rule")},
        kPatch, rule_id_of(req), p.email_address.value, p.display_name.value, p.older_than_days.value, p.notes.present,
        p.notes.value, p.is_active.value);
  });

  ctx.router.del("/api/v1/purge-rules/{rule_id:uuid}", [&db](Request& req) {
    return json_resource(db, {.missing = no_rule(rule_id_of(req))}, kDeactivateRule, rule_id_of(req));
  });
}

}  // namespace mail_triage
