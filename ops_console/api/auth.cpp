#include "ops_console/api/auth.hpp"

#include "core/http/cookies.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/password.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using identity::Access;

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

const core::json::StringRule kEmail{.min_length = 1,
                                    .max_length = 320,
                                    .check = core::is_email_address,
                                    .check_message = "must be an e-mail address",
                                    .lowercase = true};
const core::json::StringRule kPassword{.min_length = 1, .max_length = identity::kMaxPasswordLength, .trim = false};
const core::json::StringRule kNewPassword{
    .min_length = identity::kMinPasswordLength, .max_length = identity::kMaxPasswordLength, .trim = false};
const core::json::StringRule kSetupName{.min_length = 1, .max_length = 200};

constexpr std::string_view kAnyUser = "SELECT EXISTS (SELECT 1 FROM users)";

// The first administrator: only while the table is empty, which the lock makes race-free.
constexpr std::string_view kLockUsers = "LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE";
constexpr std::string_view kCreateFirstAdmin = R"sql(
  INSERT INTO users (email, name, password_hash, is_admin)
  SELECT $1, $2, $3, true WHERE NOT EXISTS (SELECT 1 FROM users)
  RETURNING id
)sql";

Response with_session(Response res, const Request& req, const std::string& token) {
  res.headers.set("Set-Cookie", identity::session_cookie(req, token));
  res.headers.set("Cache-Control", "no-store");
  return res;
}

}  // namespace

json user_json(const identity::User& u) {
  json permissions = json::array();
  for (const auto& [resource, action] : u.permissions)
    permissions.push_back({{"resource", resource}, {"action", action}});
  return {{"id", u.id},
          {"email", u.email},
          {"name", u.name},
          {"isAdmin", u.is_admin},
          {"kiosk", u.kiosk},
          {"permissions", permissions},
          {"theme", u.theme.value_or(std::string(identity::kDefaultTheme))},
          {"timezone", u.timezone.value_or(std::string(identity::kDefaultTimezone))}};
}

void install_auth_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id) {
  identity::Routes routes(ctx.router, id);
  routes.post("/api/auth/login", Access::open(), [id](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    std::string email = in.string("email", kEmail);
    std::string password = in.string("password", kPassword);
    in.finish();
    const auto signed_in = co_await id->sign_in(std::move(email), std::move(password), req.remote_address);
    co_return with_session(Response::json(user_json(signed_in.user)), req, signed_in.token);
  });

  routes.post("/api/auth/logout", Access::open(), [id](Request& req) -> awaitable<Response> {
    if (auto token = core::http::cookie(req, identity::kSessionCookie); token && !token->empty())
      co_await id->end_session(std::move(*token));
    co_return with_session(Response::empty(), req, "");
  });

  routes.get("/api/auth/me", Access::kiosk_view(), [](Request& req) -> awaitable<Response> {
    co_return Response::json(user_json(identity::current_user(req)));
  });

  routes.get("/api/auth/setup", Access::open(), [id](Request&) -> awaitable<Response> {
    const auto any = co_await id->db().query(kAnyUser);
    co_return Response::json({{"setupRequired", !any.front().get<bool>(0)}});
  });

  routes.post("/api/auth/setup", Access::open(), [id](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::string email = in.string("email", kEmail);
    const std::string name = in.string("name", kSetupName);
    std::string password = in.string("password", kNewPassword);
    in.finish();
    const std::string hash = co_await identity::hash_password_async(std::move(password));
    auto tx = co_await id->db().begin();
    co_await tx.query(kLockUsers);
    const auto created = co_await tx.query(kCreateFirstAdmin, email, name, hash);
    if (created.empty()) throw Problem::conflict("setup is done: a user exists already");
    co_await tx.commit();
    const auto user_id = created.front().get<std::int64_t>(0);
    const std::string token = co_await id->start_session(user_id, req.remote_address);
    const auto user = co_await id->user_by_id(user_id);
    co_return with_session(Response::json(user_json(user), core::http::Status::created), req, token);
  });
}

}  // namespace ops_console
