// The control routes under /_sandbox/pax8 (pax8_fake.hpp lists them).
#include "core/util/strings.hpp"
#include "sandbox/control_body.hpp"
#include "sandbox/pax8_fake.hpp"

#include "sandbox/pax8_rest.hpp"

#include <optional>
#include <stdexcept>
#include <tuple>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

void Pax8Fake::install_control(core::http::Router& router) {
  router.post("/_sandbox/pax8/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });

  router.post("/_sandbox/pax8/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return pax8::error(400, "body must be a JSON object", req);
    Pax8SeedCounts counts;
    const std::tuple<const char*, int, int*> numbers[] = {
        {"companies", 100'000, &counts.companies},
        {"subscriptions_per_company", 100, &counts.subscriptions_per_company},
        {"invoices_per_company", 36, &counts.invoices_per_company},
        {"psa_companies", 100'000, &counts.psa_companies}};
    for (const auto& [name, most, target] : numbers)
      if (const auto bad = read_int(body, name, 0, most, *target)) co_return pax8::error(400, *bad, req);
    if (const auto bad = read_seed(body, counts.seed)) co_return pax8::error(400, *bad, req);
    seed(counts);
    co_return Response::json(stats()["rows"], Status::created);
  });

  router.put("/_sandbox/pax8/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return pax8::error(400, "body must be a JSON object", req);
    Pax8Faults f;
    if (const auto bad = read_fault_switches(body, f)) co_return pax8::error(400, *bad, req);
    set_faults(f);
    co_return Response::empty();
  });

  router.get("/_sandbox/pax8/stats", [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });

  router.put("/_sandbox/pax8/token", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    int seconds = -1;
    if (!body.is_object() || !body.contains("expires_in"))
      co_return pax8::error(400, "body must be {\"expires_in\": seconds}", req);
    if (const auto bad = read_int(body, "expires_in", 0, 31'536'000, seconds)) co_return pax8::error(400, *bad, req);
    set_token_lifetime(seconds);
    co_return Response::empty();
  });

  router.get("/_sandbox/pax8/companies", [this](Request&) -> awaitable<Response> {
    co_return Response::json({{"items", rows("companies")}});
  });

  router.get("/_sandbox/pax8/rows/{kind}", [this](Request& req) -> awaitable<Response> {
    try {
      co_return Response::json({{"items", rows(std::string(req.param("kind")))}});
    } catch (const std::invalid_argument& e) {
      co_return pax8::error(404, e.what(), req);
    }
  });

  router.del("/_sandbox/pax8/companies/{id}", [this](Request& req) -> awaitable<Response> {
    const auto id = core::to_lower(req.param("id"));
    if (!remove_company(id)) co_return pax8::error(404, "Company Not Found: " + id, req);
    co_return Response::empty();
  });

  router.del("/_sandbox/pax8/subscriptions/{id}", [this](Request& req) -> awaitable<Response> {
    const auto id = core::to_lower(req.param("id"));
    if (!remove_subscription(id)) co_return pax8::error(404, "Subscription Not Found: " + id, req);
    co_return Response::empty();
  });
}

}  // namespace sandbox
