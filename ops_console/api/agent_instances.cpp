// Agent instances (issue 18), admin: where signed copies of pushes go, and who may read the
// commits back. A signing secret (Standard Webhooks, whsec_...) is write-only, shown once when
// generated (at creation without one, or on rotate_secret); a token is shown once, when issued or
// rotated.
#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/standard_webhooks.hpp"
#include "core/util/strings.hpp"
#include "ops_console/api/gitforge.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/notify/destination.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;
using nlohmann::json;

namespace {

// An instance renders as agent_instance_json() (migration 0011): never its secret or token.
constexpr std::string_view kListInstances = R"sql(
  SELECT coalesce(json_agg(agent_instance_json(a) ORDER BY a.name), '[]'::json) FROM agent_instances a
)sql";

constexpr std::string_view kCreate = R"sql(
  INSERT INTO agent_instances AS a (name, url, enabled, signing_secret, token_hash) VALUES ($1, $2, $3, $4, $5)
  RETURNING agent_instance_json(a)
)sql";

// $2..$6 are NULL for "keep".
constexpr std::string_view kUpdate = R"sql(
  UPDATE agent_instances a SET
    name = coalesce($2, a.name),
    url = coalesce($3, a.url),
    enabled = coalesce($4::boolean, a.enabled),
    signing_secret = coalesce($5, a.signing_secret),
    token_hash = coalesce($6, a.token_hash),
    token_issued_at = CASE WHEN $6 IS NULL THEN a.token_issued_at ELSE now() END,
    updated_at = now()
  WHERE a.id = $1
  RETURNING agent_instance_json(a)
)sql";

constexpr std::string_view kDelete = "DELETE FROM agent_instances WHERE id = $1 RETURNING id";

constexpr std::size_t kTokenBytes = 32;

const core::json::StringRule kInstanceName{.min_length = 1, .max_length = 100};
const core::json::StringRule kUrl{.min_length = 1, .max_length = 2048};
// A secret an admin gives is a Standard Webhooks one; older secrets stay as stored (README).
const core::json::StringRule kSecret{.max_length = 200,
                                     .check = core::standard_webhooks::is_secret,
                                     .check_message = std::string(core::standard_webhooks::kSecretRule),
                                     .trim = false};

std::int64_t id_of(const Request& req) {
  const auto id = core::parse_int64(req.param("id"));
  if (!id || *id <= 0) throw Problem::invalid_field("id", "must be an agent instance id");
  return *id;
}

Problem no_instance(std::int64_t id) { return Problem::not_found("no agent instance " + std::to_string(id)); }
Problem taken(const std::string& name) { return Problem::conflict("an agent instance named " + name + " exists"); }

std::string new_token() { return "agt_" + core::random_base64url(kTokenBytes); }

// The notifications' guard on the URL, with its DNS lookup: a refusal is an error of the field.
awaitable<void> check_url(boost::asio::any_io_executor executor, const std::string& url,
                          const notify::NotifySettings& settings, core::json::Errors& in) {
  const auto cleared = co_await notify::clear_destination(executor, url, settings.rules_for("webhook"));
  if (!cleared.refusal.empty()) in.add("url", "is refused: " + cleared.refusal);
}

}  // namespace

void install_agent_instance_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                   const notify::NotifySettings& settings) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  const auto executor = ctx.executor;

  routes.get("/api/admin/agent-instances", Access::admin(),
             [&db](Request&) { return core::app::json_document(db, kListInstances); });

  routes.post("/api/admin/agent-instances", Access::admin(),
              [&db, executor, settings](Request& req) -> awaitable<Response> {
                const auto body = core::json::parse_object(req.body);
                core::json::BodyReader in(body);
                const std::string name = in.string("name", kInstanceName);
                const std::string url = in.string("url", kUrl);
                const bool enabled = in.optional_boolean("enabled").value_or(true);
                const auto given_secret = in.optional_string("secret", kSecret);
                if (in.ok()) co_await check_url(executor, url, settings, in);
                in.finish();
                const std::string secret = given_secret.value_or(core::standard_webhooks::new_secret());
                const std::string token = new_token();
                core::db::Result rows;
                try {
                  rows = co_await db.query(kCreate, name, url, enabled, secret, identity::agent_token_hash(token));
                } catch (const core::db::Error& e) {
                  if (!e.unique_violation()) throw;
                  throw taken(name);
                }
                json once{{"token", token}};
                if (!given_secret) once["secret"] = secret;  // generated: the only time it is shown
                co_return core::app::shown_once(rows.front().text(0), once, core::http::Status::created);
              });

  routes.patch("/api/admin/agent-instances/{id}", Access::admin(),
               [&db, executor, settings](Request& req) -> awaitable<Response> {
                 const auto instance = id_of(req);
                 const auto body = core::json::parse_object(req.body);
                 core::json::BodyReader in(body);
                 const auto name = in.patch_string("name", kInstanceName, false);
                 const auto url = in.patch_string("url", kUrl, false);
                 const auto enabled = in.patch_boolean("enabled");
                 auto secret = in.patch_string("secret", kSecret, false);
                 const bool rotate = in.optional_boolean("rotate_token").value_or(false);
                 const bool rotate_secret = in.optional_boolean("rotate_secret").value_or(false);
                 if (rotate_secret && in.has("secret"))
                   in.add("secret", "give a secret or rotate_secret: true, not both");
                 if (in.ok() && url.value) co_await check_url(executor, *url.value, settings, in);
                 in.finish();
                 if (rotate_secret) secret.value = core::standard_webhooks::new_secret();
                 const std::optional<std::string> token = rotate ? std::optional(new_token()) : std::nullopt;
                 const std::optional<std::string> token_hash =
                     token ? std::optional(identity::agent_token_hash(*token)) : std::nullopt;
                 core::db::Result rows;
                 try {
                   rows = co_await db.query(kUpdate, instance, name.value, url.value, enabled.value, secret.value,
                                            token_hash);
                 } catch (const core::db::Error& e) {
                   if (!e.unique_violation()) throw;
                   throw taken(name.value.value_or(""));
                 }
                 if (rows.empty()) throw no_instance(instance);
                 json once = json::object();
                 if (token) once["token"] = *token;
                 if (rotate_secret) once["secret"] = *secret.value;  // generated: the only time it is shown
                 co_return core::app::shown_once(rows.front().text(0), once);
               });

  routes.del("/api/admin/agent-instances/{id}", Access::admin(), [&db](Request& req) -> awaitable<Response> {
    const auto instance = id_of(req);
    const auto rows = co_await db.query(kDelete, instance);
    if (rows.empty()) throw no_instance(instance);
    co_return Response::empty();
  });
}

}  // namespace ops_console
