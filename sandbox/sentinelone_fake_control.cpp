// The control routes under /_sandbox/sentinelone (sentinelone_fake.hpp lists them).
#include "core/util/strings.hpp"
#include "sandbox/control_body.hpp"
#include "sandbox/sentinelone_fake.hpp"

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

Response s1_bad_request(std::string detail) {
  return Response::json(
      {{"errors", {{{"code", 4000010}, {"detail", std::move(detail)}, {"title", "Validation Error"}}}}},
      Status::bad_request);
}

}  // namespace

void SentinelOneFake::install_control(core::http::Router& router) {
  router.post("/_sandbox/sentinelone/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });

  router.post("/_sandbox/sentinelone/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return s1_bad_request("body must be a JSON object");
    SentinelOneFakeSeedOptions options;
    const std::tuple<const char*, int, int, int*> numbers[] = {{"sites", 0, 2'000, &options.sites},
                                                               {"agents_min", 0, 100'000, &options.agents_min},
                                                               {"agents_max", 0, 100'000, &options.agents_max},
                                                               {"psa_companies", 2, 100'000, &options.psa_companies}};
    for (const auto& [name, lo, hi, target] : numbers)
      if (const auto bad = read_int(body, name, lo, hi, *target)) co_return s1_bad_request(*bad);
    if (options.agents_max < options.agents_min) co_return s1_bad_request("agents_max must be at least agents_min");
    if (const auto bad = read_seed(body, options.seed)) co_return s1_bad_request(*bad);
    seed(options);
    co_return Response::json(stats()["rows"], Status::created);
  });

  router.put("/_sandbox/sentinelone/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return s1_bad_request("body must be a JSON object");
    SentinelOneFaults f;
    if (const auto bad = read_fault_switches(body, f)) co_return s1_bad_request(*bad);
    set_faults(f);
    co_return Response::empty();
  });

  router.put("/_sandbox/sentinelone/token", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object() || !body.contains("token") || !body["token"].is_string() ||
        body["token"].get<std::string>().empty())
      co_return s1_bad_request("body must be {\"token\": \"...\"}");
    set_token(body["token"].get<std::string>());
    co_return Response::empty();
  });

  router.get("/_sandbox/sentinelone/sites", [this](Request&) -> awaitable<Response> {
    co_return Response::json({{"sites", sites()}});
  });

  router.get("/_sandbox/sentinelone/stats",
             [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });
}

}  // namespace sandbox
