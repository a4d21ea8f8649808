// The control routes under /_sandbox/duo (duo_fake.hpp lists them).
#include "core/util/strings.hpp"
#include "sandbox/control_body.hpp"
#include "sandbox/duo_fake.hpp"

#include <optional>
#include <tuple>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

Response duo_bad_request(std::string message) {
  return Response::json({{"stat", "FAIL"}, {"code", 40002}, {"message", std::move(message)}}, Status::bad_request);
}

}  // namespace

void DuoFake::install_control(core::http::Router& router) {
  router.post("/_sandbox/duo/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });

  router.post("/_sandbox/duo/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return duo_bad_request("body must be a JSON object");
    DuoFakeSeedOptions options;
    const std::tuple<const char*, int, int, int*> numbers[] = {{"children", 0, 50, &options.children},
                                                               {"users", 0, 20'000, &options.users},
                                                               {"psa_companies", 2, 100'000, &options.psa_companies}};
    for (const auto& [name, lo, hi, target] : numbers)
      if (const auto bad = read_int(body, name, lo, hi, *target)) co_return duo_bad_request(*bad);
    if (const auto bad = read_seed(body, options.seed)) co_return duo_bad_request(*bad);
    seed(options);
    co_return Response::json(stats()["rows"], Status::created);
  });

  router.put("/_sandbox/duo/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return duo_bad_request("body must be a JSON object");
    DuoFaults f;
    if (const auto bad = read_fault_switches(body, f)) co_return duo_bad_request(*bad);
    set_faults(f);
    co_return Response::empty();
  });

  router.put("/_sandbox/duo/accounts/{account_id}/failing", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    int status = -1;
    if (!body.is_object() || !body.contains("status"))
      co_return duo_bad_request("body must be {\"status\": 400..599 or 0}");
    if (const auto bad = read_int(body, "status", 0, 599, status)) co_return duo_bad_request(*bad);
    if (status != 0 && status < 400) co_return duo_bad_request("status must be 400..599, or 0 to heal the account");
    if (!set_account_failing(std::string(req.param("account_id")), status))
      co_return Response::json({{"stat", "FAIL"}, {"code", 40401}, {"message", "Resource not found"}},
                               Status::not_found);
    co_return Response::empty();
  });

  router.put("/_sandbox/duo/clock", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return duo_bad_request("body must be a JSON object");
    if (body.contains("now")) {
      if (body["now"].is_null())
        set_clock(std::nullopt);
      else if (body["now"].is_number_integer())
        set_clock(std::chrono::sys_seconds(std::chrono::seconds(body["now"].get<std::int64_t>())));
      else
        co_return duo_bad_request("now must be unix seconds or null");
    }
    int skew = -1;
    if (const auto bad = read_int(body, "max_skew_seconds", 0, 31'536'000, skew)) co_return duo_bad_request(*bad);
    if (skew >= 0) set_max_clock_skew(std::chrono::seconds(skew));
    co_return Response::empty();
  });

  router.put("/_sandbox/duo/signing", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object() || !body.contains("versions") || !body["versions"].is_array() || body["versions"].empty())
      co_return duo_bad_request("body must be {\"versions\": [2, 5] or [5]}");
    std::set<int> versions;
    for (const auto& v : body["versions"]) {
      if (!v.is_number_integer() || (v.get<int>() != 2 && v.get<int>() != 5))
        co_return duo_bad_request("versions: each must be 2 or 5");
      versions.insert(v.get<int>());
    }
    set_signature_versions(std::move(versions));
    co_return Response::empty();
  });

  router.put("/_sandbox/duo/integration", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    const auto text = [&](const char* key) {
      return body.is_object() && body.contains(key) && body[key].is_string() ? body[key].get<std::string>() : "";
    };
    if (text("ikey").empty() || text("skey").empty())
      co_return duo_bad_request("body must be {\"ikey\": ..., \"skey\": ...}");
    set_integration(text("ikey"), text("skey"));
    co_return Response::empty();
  });

  router.get("/_sandbox/duo/accounts", [this](Request& req) -> awaitable<Response> {
    auto out = accounts();
    for (auto& a : out) a["api_hostname"] = std::string(core::trim(req.header("Host")));
    co_return Response::json({{"accounts", out}});
  });

  router.get("/_sandbox/duo/stats", [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });
}

}  // namespace sandbox
