// The control routes under /_sandbox/graph (graph_fake.hpp lists them), for tests in other
// processes and the demo.
#include "sandbox/graph_fake.hpp"

#include "core/util/strings.hpp"
#include "sandbox/control_body.hpp"
#include "sandbox/graph_error.hpp"

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

void GraphFake::install_control(core::http::Router& router) {
  router.post("/_sandbox/graph/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });
  router.post("/_sandbox/graph/mailboxes/{mailbox}", [this](Request& req) -> awaitable<Response> {
    create_mailbox(std::string(req.param("mailbox")));
    co_return Response::empty(Status::created);
  });
  router.post("/_sandbox/graph/mailboxes/{mailbox}/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
    if (!body.is_object()) co_return graph_error(400, "BadRequest", "body must be a JSON object");
    const int count = body.value("count", 300);
    if (count < 0 || count > 100'000) co_return graph_error(400, "BadRequest", "count must be 0..100000");
    seed(std::string(req.param("mailbox")), count, body.value("seed", 1u), body.value("unread", false));
    co_return Response::json({{"count", count}}, Status::created);
  });
  router.post("/_sandbox/graph/mailboxes/{mailbox}/messages", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) co_return graph_error(400, "BadRequest", "body must be a JSON object");
    FakeMessage m;
    m.subject = body.value("subject", "");
    m.body = body.value("body", "");
    m.from_address = body.value("from", "");
    m.from_name = body.value("from_name", "");
    m.folder = body.value("folder", "inbox");
    m.is_read = body.value("is_read", false);
    m.has_attachments = body.value("has_attachments", false);
    const auto received = core::parse_rfc3339(body.value("received_at", ""));
    m.received_at = received ? *received : core::now();
    if (body.contains("headers") && body["headers"].is_object())
      for (const auto& [name, value] : body["headers"].items())
        if (value.is_string()) m.headers.emplace_back(name, value.get<std::string>());
    co_return Response::json({{"id", add_message(std::string(req.param("mailbox")), std::move(m))}}, Status::created);
  });
  router.get("/_sandbox/graph/mailboxes/{mailbox}/messages", [this](Request& req) -> awaitable<Response> {
    const std::string mb = core::to_lower(std::string(req.param("mailbox")));
    json items = json::array();
    for (const auto& m : messages(mb)) {
      json j = render(mb, m, true);
      j["folder"] = m.folder;
      items.push_back(std::move(j));
    }
    json gone = json::array();
    for (const auto& m : deleted(mb)) gone.push_back(render(mb, m, true));
    co_return Response::json({{"messages", items}, {"deleted", gone}});
  });
  router.put("/_sandbox/graph/mailboxes/{mailbox}/access", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("denied") || !body["denied"].is_boolean())
      co_return graph_error(400, "BadRequest", "body must be {\"denied\": true|false}");
    const std::string mb = core::to_lower(std::string(req.param("mailbox")));
    deny_access(mb, body["denied"].get<bool>());
    co_return Response::json({{"mailbox", mb}, {"denied", body["denied"]}});
  });
  router.put("/_sandbox/graph/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) co_return graph_error(400, "BadRequest", "body must be a JSON object");
    GraphFaults f;
    f.throttle = body.value("throttle", 0);
    f.retry_after = body.value("retry_after", 1);
    f.server_errors = body.value("server_errors", 0);
    f.status = body.value("status", 503);
    f.latency = std::chrono::milliseconds(body.value("latency_ms", 0));
    f.method = body.value("method", "");
    if (auto bad = read_int(body, "download_errors", 0, 1'000'000, f.download_errors))
      co_return graph_error(400, "BadRequest", *bad);
    if (auto bad = read_echo_switch(body, f.echo)) co_return graph_error(400, "BadRequest", *bad);
    if (body.contains("send_fail") && !body["send_fail"].is_null()) {
      const auto& fail = body["send_fail"];
      if (!fail.is_object() || !fail.contains("code") || !fail["code"].is_string() || fail["code"] == "")
        co_return graph_error(400, "BadRequest", "send_fail must be {status, code, message?}");
      f.send_fail_status = 503;
      if (auto bad = read_int(fail, "status", 400, 599, f.send_fail_status))
        co_return graph_error(400, "BadRequest", *bad);
      f.send_fail_code = fail["code"];
      if (fail.contains("message") && !fail["message"].is_string())
        co_return graph_error(400, "BadRequest", "send_fail.message must be a string");
      f.send_fail_message = fail.value("message", "");
    }
    set_faults(std::move(f));
    co_return Response::empty();
  });
  router.put("/_sandbox/graph/permissions", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("Mail.Send") || !body["Mail.Send"].is_boolean())
      co_return graph_error(400, "BadRequest", "body must be {\"Mail.Send\": true|false}");
    grant_mail_send(body["Mail.Send"].get<bool>());
    co_return Response::json({{"Mail.Send", body["Mail.Send"]}});
  });
  router.get("/_sandbox/graph/sent", [this](Request&) -> awaitable<Response> {
    const auto people = [](const std::vector<SentMail::Recipient>& list) {
      json out = json::array();
      for (const auto& r : list) out.push_back({{"address", r.address}, {"name", r.name}});
      return out;
    };
    json items = json::array();
    for (const auto& m : sent())
      items.push_back({{"from", m.from},
                       {"subject", m.subject},
                       {"contentType", m.content_type},
                       {"body", m.body},
                       {"to", people(m.to)},
                       {"cc", people(m.cc)},
                       {"bcc", people(m.bcc)},
                       {"saveToSentItems", m.save_to_sent_items},
                       {"sentDateTime", core::format_rfc3339(m.sent_at)}});
    co_return Response::json({{"sent", items}});
  });
  // The directory and the usage reports (graph_fake_directory.cpp).
  router.put("/_sandbox/graph/users/{user}/photo", [this](Request& req) -> awaitable<Response> {
    const std::string type(req.header("content-type"));
    if (!type.starts_with("image/") || req.body.empty())
      co_return graph_error(400, "BadRequest", "the body must be an image with its image/* Content-Type");
    co_return Response::json({{"id", set_photo(std::string(req.param("user")), type, req.body)}});
  });
  router.del("/_sandbox/graph/users/{user}/photo", [this](Request& req) -> awaitable<Response> {
    remove_photo(std::string(req.param("user")));
    co_return Response::empty();
  });
  router.post("/_sandbox/graph/usage", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object() || !body.contains("rows") || !body["rows"].is_array())
      co_return graph_error(400, "BadRequest",
                            "body must be {rows: [{date, user, displayName?, send, receive, read?}]}");
    const json rows = body["rows"];
    for (const auto& r : rows) {
      if (!r.is_object() || !r.contains("date") || !r["date"].is_string() || !r.contains("user") ||
          !r["user"].is_string())
        co_return graph_error(400, "BadRequest", "each row needs a date (YYYY-MM-DD) and a user");
      UsageDay u;
      u.user = r["user"];
      u.display_name = r.value("displayName", "");
      for (const auto& bad :
           {read_int(r, "send", 0, 1'000'000, u.send), read_int(r, "receive", 0, 1'000'000, u.receive),
            read_int(r, "read", 0, 1'000'000, u.read)})
        if (bad) co_return graph_error(400, "BadRequest", *bad);
      add_usage(r["date"], std::move(u));
    }
    co_return Response::json({{"rows", rows.size()}}, Status::created);
  });
  router.post("/_sandbox/graph/usage/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return graph_error(400, "BadRequest", "body must be a JSON object");
    int users = 25, days = 28;
    std::uint32_t seed = 1;
    for (const auto& bad :
         {read_int(body, "users", 0, 10'000, users), read_int(body, "days", 0, 120, days), read_seed(body, seed)})
      if (bad) co_return graph_error(400, "BadRequest", *bad);
    const std::string domain = body.value("domain", "msp.example");
    if (!core::is_domain_name(domain)) co_return graph_error(400, "BadRequest", "domain must be a domain name");
    seed_usage(users, days, seed, domain);
    co_return Response::json({{"users", users}, {"days", days}}, Status::created);
  });
  router.put("/_sandbox/graph/reports", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    int lag = 2;
    if (!body.is_object() || !body.contains("lag_days"))
      co_return graph_error(400, "BadRequest", "body must be {lag_days: 0..28}");
    if (auto bad = read_int(body, "lag_days", 0, 28, lag)) co_return graph_error(400, "BadRequest", *bad);
    set_report_lag(lag);
    co_return Response::json({{"lag_days", lag}});
  });
  router.get("/_sandbox/graph/stats", [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });
}

}  // namespace sandbox
