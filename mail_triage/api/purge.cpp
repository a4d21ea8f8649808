#include "mail_triage/api/purge.hpp"

#include "core/async/bounded_executor.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "mail_triage/api/fields.hpp"

namespace mail_triage {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

const core::json::StringRule kMode{.one_of = {"preview", "execute"}};
const core::json::IntRule kDays{.min = 1, .max = 3650};

// mode required; sender an address or null (absent is null); days required with a sender, and
// ignored without one, since each rule then brings its own.
pipeline::PurgeRequest read_request(const std::string& body_text) {
  const auto body = core::json::parse_object(body_text);
  core::json::BodyReader in(body);
  pipeline::PurgeRequest r;
  r.execute = in.string("mode", kMode) == "execute";
  r.sender = in.optional_string("sender", fields::email_address);
  if (r.sender) r.days = static_cast<int>(in.integer("days", kDays));
  in.finish();
  return r;
}

json render(const std::string& mode, const pipeline::PurgeResult& result) {
  json body = {{"mode", mode}, {"total", result.total()}, {"rows", json::array()}};
  for (const auto& row : result.rows)
    body["rows"].push_back(
        {{"address", row.address}, {"label", row.label()}, {"count", row.count}, {"subjects", row.subjects}});
  for (const auto& address : result.excluded)
    body["excluded"].push_back({{"address", address}, {"reason", "whitelisted"}});
  for (const auto& e : result.errors) {
    json item = {{"mailbox", e.mailbox}, {"address", e.address}, {"error", e.error}};
    if (!e.message_id.empty()) item["message_id"] = e.message_id;
    body["errors"].push_back(std::move(item));
  }
  return body;
}

}  // namespace

void install_purge_routes(core::app::Context& ctx, std::shared_ptr<pipeline::Purge> purge) {
  // 200 with what was found (preview) or deleted (execute); `excluded` and `errors` appear only
  // when there is something to say. When not one listing could be made, 502 with the reason.
  ctx.router.post("/api/v1/purge/execute", [purge](Request& req) -> awaitable<Response> {
    const auto request = read_request(req.body);
    co_await core::async::lift_bounds();  // a batch, as a processing run is (api/process.cpp)
    const auto result = co_await purge->run(request);
    if (result.nothing_searched())
      throw Problem(core::http::Status::bad_gateway, "mail-platform-error",
                    "no mailbox could be searched: " + result.errors.front().error);
    co_return Response::json(render(request.execute ? "execute" : "preview", result));
  });
}

}  // namespace mail_triage
