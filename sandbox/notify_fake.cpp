#include "sandbox/notify_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/util/strings.hpp"

#include <regex>

namespace sandbox {

using boost::asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

constexpr const char* kRecordedHeaders[] = {
    "content-type",      "title",          "priority",       "tags", "user-agent", "webhook-id", "webhook-timestamp",
    "webhook-signature", "x-notify-event", "x-signature-256"};

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Response with_retry_after(Response res, int retry_after) {
  if (retry_after > 0) res.headers.set("Retry-After", std::to_string(retry_after));
  return res;
}

// Google APIs' error body.
Response google_error(int status, const std::string& message, const std::string& code) {
  return Response::json({{"error", {{"code", status}, {"message", message}, {"status", code}}}}, Status(status));
}

// The Bot API's: {ok: false, error_code, description[, parameters]}.
Response telegram_error(int status, const std::string& description, int retry_after = 0) {
  json body{{"ok", false}, {"error_code", status}, {"description", description}};
  if (retry_after > 0) body["parameters"] = {{"retry_after", retry_after}};
  return with_retry_after(Response::json(body, Status(status)), retry_after);
}

std::string telegram_description(int status, int retry_after) {
  switch (status) {
    case 400:
      return "Bad Request: chat not found";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden: bot was blocked by the user";
    case 429:
      return "Too Many Requests: retry after " + std::to_string(retry_after);
    default:
      return "Internal Server Error";
  }
}

int ntfy_priority(std::string_view name) {
  const std::string p = core::to_lower(name);
  if (p == "min" || p == "1") return 1;
  if (p == "low" || p == "2") return 2;
  if (p == "high" || p == "4") return 4;
  if (p == "urgent" || p == "max" || p == "5") return 5;
  return 3;
}

}  // namespace

std::optional<NotifyFault> NotifyFake::arrive(const std::string& receiver, const Request& req) {
  json headers = json::object();
  for (const char* name : kRecordedHeaders)
    if (const auto v = req.header(name); !v.empty()) headers[name] = std::string(v);
  std::lock_guard lock(mutex_);
  received_.push_back({{"receiver", receiver}, {"path", req.target}, {"headers", headers}, {"body", req.body}});
  if (received_.size() > 1000) received_.pop_front();
  auto it = faults_.find(receiver);
  if (it == faults_.end() || it->second.count <= 0) return std::nullopt;
  --it->second.count;
  return it->second;
}

json NotifyFake::received(const std::string& receiver) const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  for (const auto& r : received_)
    if (receiver.empty() || r["receiver"] == receiver) out.push_back(r);
  return out;
}

void NotifyFake::clear() {
  std::lock_guard lock(mutex_);
  received_.clear();
  faults_.clear();
  latency_.clear();
}

void NotifyFake::set_latency(const std::string& receiver, std::chrono::milliseconds latency) {
  std::lock_guard lock(mutex_);
  latency_[receiver] = latency;
}

awaitable<void> NotifyFake::linger(const std::string& receiver) {
  std::chrono::milliseconds latency{0};
  {
    std::lock_guard lock(mutex_);
    if (const auto it = latency_.find(receiver); it != latency_.end()) latency = it->second;
  }
  if (latency.count() > 0) co_await core::async::sleep_for(latency);
}

void NotifyFake::set_fault(const std::string& receiver, NotifyFault fault) {
  std::lock_guard lock(mutex_);
  faults_[receiver] = fault;
}

void NotifyFake::install(core::http::Router& router) {
  router.post("/chat/v1/spaces/{space}/messages", [this](Request& req) -> awaitable<Response> {
    const auto fault = arrive("chat", req);
    co_await linger("chat");
    if (fault)
      co_return with_retry_after(google_error(fault->status, "The service is currently unavailable.", "UNAVAILABLE"),
                                 fault->retry_after);
    if (!req.query.get("key") || !req.query.get("token"))
      co_return google_error(401, "Request is missing required authentication credential.", "UNAUTHENTICATED");
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("text") || !body["text"].is_string() ||
        body["text"].get<std::string>().empty())
      co_return google_error(400, "Invalid JSON payload received. Message cannot be empty.", "INVALID_ARGUMENT");
    long id;
    {
      std::lock_guard lock(mutex_);
      id = next_id_++;
    }
    const std::string space(req.param("space"));
    co_return Response::json({{"name", "spaces/" + space + "/messages/" + std::to_string(id)},
                              {"sender", {{"name", "users/bot"}, {"type", "BOT"}}},
                              {"text", body["text"]},
                              {"space", {{"name", "spaces/" + space}}}});
  });

  router.post("/telegram/{bot}/sendMessage", [this](Request& req) -> awaitable<Response> {
    const auto fault = arrive("telegram", req);
    co_await linger("telegram");
    if (fault)
      co_return telegram_error(fault->status, telegram_description(fault->status, fault->retry_after),
                               fault->retry_after);
    static const std::regex token("^bot[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$");
    const std::string bot(req.param("bot"));
    if (!std::regex_match(bot, token)) co_return telegram_error(404, "Not Found");
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("chat_id")) co_return telegram_error(400, "Bad Request: chat_id is empty");
    if (!body.contains("text") || !body["text"].is_string() || body["text"].get<std::string>().empty())
      co_return telegram_error(400, "Bad Request: message text is empty");
    const std::string mode = body.value("parse_mode", "");
    if (!mode.empty() && mode != "HTML" && mode != "MarkdownV2" && mode != "Markdown")
      co_return telegram_error(400, "Bad Request: unsupported parse_mode");
    long id;
    {
      std::lock_guard lock(mutex_);
      id = next_id_++;
    }
    co_return Response::json(
        {{"ok", true},
         {"result",
          {{"message_id", id}, {"date", unix_now()}, {"chat", {{"id", body["chat_id"]}}}, {"text", body["text"]}}}});
  });

  router.post("/ntfy/{topic}", [this](Request& req) -> awaitable<Response> {
    const auto fault = arrive("ntfy", req);
    co_await linger("ntfy");
    if (fault)
      co_return with_retry_after(
          Response::json(
              {{"code", fault->status * 100 + 1}, {"http", fault->status}, {"error", "limit reached or server error"}},
              Status(fault->status)),
          fault->retry_after);
    static const std::regex topic_name("^[-_A-Za-z0-9]{1,64}$");
    const std::string topic(req.param("topic"));
    if (!std::regex_match(topic, topic_name))
      co_return Response::json({{"code", 40010}, {"http", 400}, {"error", "invalid request: topic invalid"}},
                               Status::bad_request);
    json message{{"id", core::random_hex(6)}, {"time", unix_now()},
                 {"event", "message"},        {"topic", topic},
                 {"message", req.body},       {"priority", ntfy_priority(req.header("priority"))}};
    if (const auto title = req.header("title"); !title.empty()) message["title"] = std::string(title);
    if (const auto tags = req.header("tags"); !tags.empty()) {
      json list = json::array();
      for (const auto t : core::split(tags, ',')) list.push_back(std::string(core::trim(t)));
      message["tags"] = list;
    }
    co_return Response::json(message);
  });

  router.post("/webhook/{name}", [this](Request& req) -> awaitable<Response> {
    const auto fault = arrive("webhook", req);
    co_await linger("webhook");
    if (fault)
      co_return with_retry_after(Response::json({{"error", "receiver failed"}}, Status(fault->status)),
                                 fault->retry_after);
    co_return Response::json({{"received", true}});
  });

  router.get("/_sandbox/notify/received", [this](Request& req) -> awaitable<Response> {
    co_return Response::json(received(std::string(req.query.get("receiver").value_or(""))));
  });
  router.del("/_sandbox/notify/received", [this](Request&) -> awaitable<Response> {
    clear();
    co_return Response::empty();
  });
  router.put("/_sandbox/notify/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("receiver") || !body["receiver"].is_string())
      co_return Response::json({{"error", "body must be {receiver, status, count, retry_after?}"}},
                               Status::bad_request);
    set_fault(body["receiver"].get<std::string>(), {.status = body.value("status", 500),
                                                    .count = body.value("count", 1),
                                                    .retry_after = body.value("retry_after", 0)});
    co_return Response::empty();
  });
  router.put("/_sandbox/notify/latency", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("receiver") || !body["receiver"].is_string() ||
        !body.value("latency_ms", json()).is_number_integer() || body["latency_ms"].get<std::int64_t>() < 0 ||
        body["latency_ms"].get<std::int64_t>() > 600'000)
      co_return Response::json({{"error", "body must be {receiver, latency_ms: 0..600000}"}}, Status::bad_request);
    set_latency(body["receiver"].get<std::string>(), std::chrono::milliseconds(body["latency_ms"].get<std::int64_t>()));
    co_return Response::empty();
  });
}

}  // namespace sandbox
