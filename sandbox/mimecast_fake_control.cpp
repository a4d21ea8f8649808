// The control routes under /_sandbox/mimecast (mimecast_fake.hpp lists them), for tests in other processes
// and the demo.
#include "core/util/strings.hpp"
#include "sandbox/control_body.hpp"
#include "sandbox/mimecast_fake.hpp"

#include <stdexcept>
#include <tuple>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

Response mimecast_bad_request(const std::string& message) {
  return Response::json({{"error", "bad_request"}, {"message", message}}, Status::bad_request);
}

std::string text(const json& body, const char* name, std::string fallback = {}) {
  const auto it = body.find(name);
  return it != body.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// received_at: RFC 3339 or Mimecast's form; absent: now. Throws std::invalid_argument when malformed.
core::Timestamp received_at(const json& body) {
  if (!body.contains("received_at")) return core::now();
  const auto t = mimecast::parse_date(text(body, "received_at"));
  if (!t) throw std::invalid_argument("received_at must be an RFC 3339 date");
  return *t;
}

}  // namespace

void MimecastFake::install_control(core::http::Router& router) {
  router.post("/_sandbox/mimecast/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });

  router.post("/_sandbox/mimecast/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return mimecast_bad_request("body must be a JSON object");
    MimecastFakeSeedOptions options;
    const std::tuple<const char*, int, int*> numbers[] = {{"held", 100'000, &options.held},
                                                          {"tracked", 100'000, &options.tracked},
                                                          {"users", 10'000, &options.users},
                                                          {"days", 31, &options.days}};
    for (const auto& [name, most, target] : numbers)
      if (const auto bad = read_int(body, name, 0, most, *target)) co_return mimecast_bad_request(*bad);
    if (const auto bad = read_seed(body, options.seed)) co_return mimecast_bad_request(*bad);
    seed(options);
    const auto rows = stats()["rows"];
    co_return Response::json(
        {{"held", rows["held"]}, {"tracked", rows["tracked"]}, {"events", rows["events"]}, {"users", rows["users"]}},
        Status::created);
  });

  router.put("/_sandbox/mimecast/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return mimecast_bad_request("body must be a JSON object");
    MimecastFaults f;
    if (const auto bad = read_fault_switches(body, f)) co_return mimecast_bad_request(*bad);
    if (const auto bad = read_int(body, "latency_calls", 0, 1'000'000, f.latency_calls))
      co_return mimecast_bad_request(*bad);
    f.endpoint = text(body, "endpoint");
    if (!f.endpoint.empty() && !f.endpoint.starts_with("/"))
      co_return mimecast_bad_request("endpoint is a path such as /api/gateway/get-hold-message-list");
    f.client_id = text(body, "client_id");
    set_faults(f);
    co_return Response::empty();
  });

  router.put("/_sandbox/mimecast/admin", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object() || !body.contains("admin") || !body["admin"].is_boolean())
      co_return mimecast_bad_request("body must be {\"admin\": true|false}");
    set_admin(body["admin"].get<bool>());
    co_return Response::json({{"admin", body["admin"]}});
  });

  router.put("/_sandbox/mimecast/token", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    int seconds = -1;
    if (!body.is_object() || !body.contains("expires_in"))
      co_return mimecast_bad_request("body must be {\"expires_in\": seconds}");
    if (const auto bad = read_int(body, "expires_in", 0, 31'536'000, seconds)) co_return mimecast_bad_request(*bad);
    set_token_lifetime(seconds);
    co_return Response::empty();
  });

  router.get("/_sandbox/mimecast/stats",
             [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });

  router.get("/_sandbox/mimecast/held", [this](Request&) -> awaitable<Response> {
    co_return Response::json({{"items", held()}});
  });

  router.post("/_sandbox/mimecast/held", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return mimecast_bad_request("body must be a JSON object");
    mimecast::Held h;
    try {
      h.received = received_at(body);
    } catch (const std::invalid_argument& e) {
      co_return mimecast_bad_request(e.what());
    }
    h.subject = text(body, "subject", "Held message");
    h.from = {text(body, "from", "sender@external.example"), text(body, "from_name")};
    h.to = {text(body, "to", options().caller_email), text(body, "to_name")};
    h.reason = text(body, "reason", "Spam Signature");
    h.reason_code = text(body, "reason_code", "spam_signature");
    h.policy_info = text(body, "policy_info", "Moderate Spam Detection");
    h.route = text(body, "route", "inbound");
    h.size = body.value("size", 4096);
    h.has_attachments = body.value("has_attachments", false);
    co_return Response::json({{"id", add_held(std::move(h))}}, Status::created);
  });

  router.get("/_sandbox/mimecast/tracked", [this](Request&) -> awaitable<Response> {
    co_return Response::json({{"items", tracked()}});
  });

  router.post("/_sandbox/mimecast/tracked", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return mimecast_bad_request("body must be a JSON object");
    mimecast::Tracked t;
    try {
      t.received = received_at(body);
    } catch (const std::invalid_argument& e) {
      co_return mimecast_bad_request(e.what());
    }
    t.status = text(body, "status", "delivered");
    t.from = {text(body, "from", "sender@external.example"), text(body, "from_name")};
    if (const auto to = body.find("to"); to != body.end() && to->is_array()) {
      for (const auto& a : *to)
        if (a.is_string()) t.to.push_back({a.get<std::string>(), ""});
    } else {
      t.to.push_back({text(body, "to", options().caller_email), ""});
    }
    t.subject = text(body, "subject", "Tracked message");
    t.route = text(body, "route", "inbound");
    t.info = text(body, "info", "Message delivered");
    t.message_id = text(body, "message_id");
    t.spam_score = body.value("spam_score", 0);
    t.detection_level = text(body, "detection_level", "moderate");
    t.attachments = body.value("attachments", false);
    t.size = body.value("size", 4096);
    co_return Response::json({{"id", add_tracked(std::move(t))}}, Status::created);
  });

  router.get("/_sandbox/mimecast/counts", [this](Request&) -> awaitable<Response> {
    co_return Response::json({{"counts", counts()}});
  });
}

}  // namespace sandbox
