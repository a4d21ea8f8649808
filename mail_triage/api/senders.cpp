#include "mail_triage/api/senders.hpp"

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

// A profile renders as sender_profile_json() (migration 0007).
constexpr std::string_view kListActive = R"sql(
  SELECT json_build_object('items', coalesce(json_agg(sender_profile_json(p) ORDER BY p.email_address), '[]'::json))
  FROM sender_profiles p WHERE p.is_active
)sql";

// Creates, or updates and reactivates the profile of that address; `created` tells which.
constexpr std::string_view kUpsert = R"sql(
  INSERT INTO sender_profiles AS p
    (email_address, display_name, sender_type, email_types, processing_instructions, notes)
  VALUES ($1, $2, $3, $4::text[], $5, $6)
  ON CONFLICT (email_address) DO UPDATE SET
    display_name = EXCLUDED.display_name,
    sender_type = EXCLUDED.sender_type,
    email_types = EXCLUDED.email_types,
    processing_instructions = EXCLUDED.processing_instructions,
    notes = EXCLUDED.notes,
    is_active = true,
    updated_at = now()
  RETURNING sender_profile_json(p), (xmax = 0) AS created
)sql";

constexpr std::string_view kGet = R"sql(
  SELECT sender_profile_json(p) FROM sender_profiles p WHERE p.id = $1
)sql";

constexpr std::string_view kReplace = R"sql(
  UPDATE sender_profiles p SET
    email_address = $2, display_name = $3, sender_type = $4, email_types = $5::text[],
    processing_instructions = $6, notes = $7, updated_at = now()
  WHERE p.id = $1
  RETURNING sender_profile_json(p)
)sql";

constexpr std::string_view kDeactivate = R"sql(
  UPDATE sender_profiles p SET is_active = false,
    updated_at = CASE WHEN p.is_active THEN now() ELSE p.updated_at END
  WHERE p.id = $1
  RETURNING sender_profile_json(p)
)sql";

struct ProfileInput {
  std::string email_address, display_name, sender_type;
  std::vector<std::string> email_types;
  std::string processing_instructions;
  std::optional<std::string> notes;
};

// The body of POST and PUT: email_address and sender_type required, the rest optional.
ProfileInput read_profile(const std::string& body_text) {
  const auto body = core::json::parse_object(body_text);
  core::json::BodyReader in(body);
  ProfileInput p{
      .email_address = in.string("email_address", fields::email_address),
      .display_name = in.optional_string("display_name", fields::display_name).value_or(""),
      .sender_type = in.string("sender_type", {.one_of = {"customer", "vendor", "whitelist", "unknown"}}),
      .email_types = in.strings("email_types", {.min_length = 1, .max_length = 100}, 50),
      .processing_instructions = in.optional_string("processing_instructions", fields::free_text).value_or(""),
      .notes = in.optional_string("notes", fields::free_text),
  };
  in.finish();
  return p;
}

std::string id_of(const Request& req) { return std::string(req.param("profile_id")); }

Problem no_profile(const std::string& id) { return Problem::not_found("no sender profile " + id); }

}  // namespace

void install_sender_routes(core::app::Context& ctx) {
  auto& db = ctx.db;

  ctx.router.get("/api/v1/senders", [&db](Request&) { return json_document(db, kListActive); });

  ctx.router.post("/api/v1/senders", [&db](Request& req) -> awaitable<Response> {
    const ProfileInput p = read_profile(req.body);
    const auto rows = co_await db.query(kUpsert, p.email_address, p.display_name, p.sender_type, p.email_types,
                                        p.processing_instructions, p.notes);
    co_return core::app::upserted(rows);
  });

  ctx.router.get("/api/v1/senders/{profile_id:uuid}", [&db](Request& req) {
    return json_resource(db, {.missing = no_profile(id_of(req))}, kGet, id_of(req));
  });

  ctx.router.put("/api/v1/senders/{profile_id:uuid}", [&db](Request& req) {
    const ProfileInput p = read_profile(req.body);
    return json_resource(
        db,
        {.missing = no_profile(id_of(req)),
         .duplicate = Problem::conflict("email_address " + p.email_address + " belongs to another sender profile")},
        kReplace, id_of(req), p.email_address, p.display_name, p.sender_type, p.email_types, p.processing_instructions,
        p.notes);
  });

  ctx.router.del("/api/v1/senders/{profile_id:uuid}", [&db](Request& req) {
    return json_resource(db, {.missing = no_profile(id_of(req))}, kDeactivate, id_of(req));
  });
}

}  // namespace mail_triage
