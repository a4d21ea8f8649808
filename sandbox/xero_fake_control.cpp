// The control routes under /_sandbox/xero (xero_fake.hpp lists them), for tests in other processes
// and the demo.
#include "sandbox/control_body.hpp"
#include "sandbox/xero_fake.hpp"

#include "core/util/strings.hpp"
#include "sandbox/xero_rest.hpp"

#include <stdexcept>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

Response xero_bad_request(const std::string& message) { return xero::problem(400, message); }

// An integer field of `body` within [lo, hi], if present; throws std::invalid_argument otherwise.
std::optional<std::int64_t> integer(const json& body, const char* name, std::int64_t lo, std::int64_t hi) {
  if (!body.contains(name)) return std::nullopt;
  const auto& v = body[name];
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
    throw std::invalid_argument(std::string(name) + " must be an integer " + std::to_string(lo) + ".." +
                                std::to_string(hi));
  return v.get<std::int64_t>();
}

}  // namespace

void XeroFake::install_control(core::http::Router& router) {
  router.post("/_sandbox/xero/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });

  router.post("/_sandbox/xero/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return xero_bad_request("body must be a JSON object");
    xero::SeedOptions options;
    try {
      if (const auto v = integer(body, "seed", 0, 4294967295LL)) options.seed = static_cast<std::uint32_t>(*v);
      if (const auto v = integer(body, "contacts", 0, 10'000)) options.contacts = static_cast<int>(*v);
      if (const auto v = integer(body, "months", 1, 120)) options.months = static_cast<int>(*v);
    } catch (const std::invalid_argument& e) {
      co_return xero_bad_request(e.what());
    }
    seed(options);
    co_return Response::json(stats()["rows"], Status::created);
  });

  router.put("/_sandbox/xero/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return xero_bad_request("body must be a JSON object");
    XeroFaults f;
    try {
      f.throttle = static_cast<int>(integer(body, "throttle", 0, 1'000'000).value_or(0));
      f.retry_after = static_cast<int>(integer(body, "retry_after", 0, 86'400).value_or(1));
      f.server_errors = static_cast<int>(integer(body, "server_errors", 0, 1'000'000).value_or(0));
      f.status = static_cast<int>(integer(body, "status", 500, 599).value_or(503));
      f.latency = std::chrono::milliseconds(integer(body, "latency_ms", 0, 600'000).value_or(0));
      const json deny = body.value("deny_next_authorization", json(false));
      f.deny_authorizations = deny.is_boolean()
                                  ? (deny.get<bool>() ? 1 : 0)
                                  : static_cast<int>(integer(body, "deny_next_authorization", 0, 1'000).value_or(0));
    } catch (const std::invalid_argument& e) {
      co_return xero_bad_request(e.what());
    }
    f.problem = body.value("problem", "minute");
    if (f.problem != "minute" && f.problem != "day" && f.problem != "concurrent")
      co_return xero_bad_request("problem must be minute, day or concurrent");
    if (const auto bad = read_echo_switch(body, f.echo)) co_return xero_bad_request(*bad);
    set_faults(f);
    co_return Response::empty();
  });

  router.put("/_sandbox/xero/token", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return xero_bad_request("body must be a JSON object");
    auto settings = token_settings();
    try {
      if (const auto v = integer(body, "access_lifetime_seconds", 0, 86'400 * 365))
        settings.access_lifetime = std::chrono::seconds(*v);
      if (const auto v = integer(body, "refresh_grace_seconds", 0, 86'400 * 365))
        settings.refresh_grace = std::chrono::seconds(*v);
      if (const auto v = integer(body, "code_lifetime_seconds", 0, 86'400))
        settings.code_lifetime = std::chrono::seconds(*v);
    } catch (const std::invalid_argument& e) {
      co_return xero_bad_request(e.what());
    }
    set_token_settings(settings);
    co_return Response::json({{"access_lifetime_seconds", settings.access_lifetime.count()},
                              {"refresh_grace_seconds", settings.refresh_grace.count()},
                              {"code_lifetime_seconds", settings.code_lifetime.count()}});
  });

  router.put("/_sandbox/xero/limits", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return xero_bad_request("body must be a JSON object");
    auto l = limits();
    try {
      if (const auto v = integer(body, "minute", 0, 1'000'000)) l.minute = static_cast<int>(*v);
      if (const auto v = integer(body, "day", 0, 100'000'000)) l.day = static_cast<int>(*v);
      if (const auto v = integer(body, "concurrent", 0, 1'000)) l.concurrent = static_cast<int>(*v);
    } catch (const std::invalid_argument& e) {
      co_return xero_bad_request(e.what());
    }
    set_limits(l);
    co_return Response::json({{"minute", l.minute}, {"day", l.day}, {"concurrent", l.concurrent}});
  });

  router.get("/_sandbox/xero/stats", [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });

  router.post("/_sandbox/xero/invoices/{id}/touch", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return xero_bad_request("body must be a JSON object");
    XeroInvoiceChange change;
    if (body.contains("status")) {
      if (!body["status"].is_string()) co_return xero_bad_request("status must be a string");
      change.status = body["status"].get<std::string>();
    }
    if (body.contains("pay")) {
      if (!body["pay"].is_number()) co_return xero_bad_request("pay must be a number");
      change.pay = body["pay"].get<double>();
    }
    try {
      const auto invoice = touch_invoice(std::string(req.param("id")), change);
      if (!invoice) co_return xero::problem(404, "no invoice has that InvoiceID or InvoiceNumber");
      co_return Response::json({{"invoice", *invoice}});
    } catch (const std::invalid_argument& e) {
      co_return xero_bad_request(e.what());
    }
  });

  router.get("/_sandbox/xero/rows/{kind}", [this](Request& req) -> awaitable<Response> {
    const auto* kind = xero::find_kind(req.param("kind"));
    if (!kind) co_return xero::problem(404, "no such kind (Invoices, Payments, Contacts)");
    co_return Response::json({{"items", rows(kind->name)}});
  });

  router.post("/_sandbox/xero/rows/{kind}", [this](Request& req) -> awaitable<Response> {
    const auto* kind = xero::find_kind(req.param("kind"));
    if (!kind) co_return xero::problem(404, "no such kind (Invoices, Payments, Contacts)");
    try {
      co_return Response::json({{"item", add(kind->name, body_of(req))}}, Status::created);
    } catch (const std::invalid_argument& e) {
      co_return xero_bad_request(e.what());
    }
  });

  router.get("/_sandbox/xero/connections",
             [this](Request&) -> awaitable<Response> { co_return Response::json(connections()); });
}

}  // namespace sandbox
