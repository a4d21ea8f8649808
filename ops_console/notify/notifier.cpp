#include "ops_console/notify/notifier.hpp"

#include "core/async/join.hpp"
#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/secrets.hpp"
#include "core/util/standard_webhooks.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "ops_console/notify/destination.hpp"

#include <algorithm>

namespace ops_console::notify {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::OutboundRequest;
using nlohmann::json;

namespace {

// Enabled channels that want `event_key`: every global one, and personal ones whose owner has
// not switched the cell off (no row: on). None when the key is known and inactive.
constexpr std::string_view kTargets = R"sql(
  SELECT c.id, c.channel_type, c.name, c.config::text
  FROM notification_channels c
  WHERE c.enabled
    AND NOT EXISTS (SELECT 1 FROM notify_event_keys k WHERE k.key = $1 AND NOT k.is_active)
    AND (c.owner_user_id IS NULL
         OR coalesce((SELECT s.enabled FROM notification_subscriptions s
                      WHERE s.user_id = c.owner_user_id AND s.event_key = $1 AND s.channel_type = c.channel_type),
                     true))
  ORDER BY c.id
)sql";

constexpr std::string_view kRecord = R"sql(
  INSERT INTO notification_deliveries (channel_id, channel_type, event_key, delivered, attempts, http_status, reason)
  VALUES ($1, $2, $3, $4, $5, $6, nullif($7, ''))
)sql";

std::string dump(const json& body) { return body.dump(-1, ' ', false, json::error_handler_t::replace); }

// Header values carry no line breaks; non-ASCII goes as an RFC 2047 encoded word, which ntfy reads.
std::string header_value(std::string_view value) {
  std::string flat;
  for (const char c : value) flat += (c == '\r' || c == '\n') ? ' ' : c;
  const bool ascii = std::all_of(flat.begin(), flat.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  return ascii ? flat : "=?UTF-8?B?" + core::base64(flat) + "?=";
}

// What went wrong, in a line: the vendor's own words when it gave any.
std::string failure_reason(const Channel& channel, const core::http::OutboundResponse& res) {
  std::string detail;
  const auto body = json::parse(res.body, nullptr, false);
  if (channel.type == "messenger_bot" && body.is_object() && body.contains("description"))
    detail = body.value("description", "");
  else if (body.is_object() && body.contains("error") && body["error"].is_string())
    detail = body["error"].get<std::string>();
  else if (body.is_object() && body.contains("error") && body["error"].is_object())
    detail = body["error"].value("message", "");
  else
    detail = core::secrets::quote(res.body, 200);  // masked before it is cut: no head of a secret left
  std::string reason = "HTTP " + std::to_string(res.status);
  if (!core::trim(detail).empty()) reason += ": " + std::string(core::trim(detail));
  return core::secrets::quote(reason, 500);  // the receiver's words: masked and bounded
}

}  // namespace

json Delivery::to_json() const {
  json out{{"delivered", delivered}, {"attempts", attempts}, {"http_status", nullptr}, {"reason", nullptr}};
  if (http_status) out["http_status"] = *http_status;
  if (!reason.empty()) out["reason"] = reason;
  return out;
}

OutboundRequest build_request(const Channel& channel, const Message& message,
                              const std::optional<std::string>& event_key, const NotifySettings& settings) {
  const json& cfg = channel.config;
  OutboundRequest req{.method = "POST"};
  if (channel.type == "chat_webhook") {
    // Google Chat and Teams incoming webhooks both take {"text"}; *bold* renders in Google Chat.
    req.url = cfg.value("url", "");
    req.headers = {{"Content-Type", "application/json; charset=UTF-8"}};
    req.body = dump({{"text", "*" + message.title + "*\n" + message.text}});
  } else if (channel.type == "messenger_bot") {
    core::secrets::remember(cfg.value("bot_token", ""));  // in the URL: masked wherever it turns up
    req.url = settings.telegram_api_url + "/bot" + cfg.value("bot_token", "") + "/sendMessage";
    req.headers = {{"Content-Type", "application/json"}};
    req.body = dump({{"chat_id", cfg.value("chat_id", "")},
                     {"text", "<b>" + core::html_escape(message.title) + "</b>\n" + core::html_escape(message.text)},
                     {"parse_mode", "HTML"}});
  } else if (channel.type == "push_topic") {
    req.url = settings.ntfy_url + "/" + cfg.value("topic", "");
    req.headers = {{"Content-Type", "text/plain; charset=utf-8"},
                   {"Title", header_value(message.title)},
                   {"Priority", message.priority}};
    if (!message.tags.empty()) req.headers.emplace_back("Tags", header_value(core::join(message.tags, ",")));
    req.body = message.text;
  } else {
    // Generic webhook: JSON, signed by Standard Webhooks under the channel's secret. The message id
    // is made here, once: the client's retry sends this same request, so the same webhook-id.
    req.url = cfg.value("url", "");
    req.body = dump({{"event", event_key.value_or("test")},
                     {"channel_id", channel.id},
                     {"title", message.title},
                     {"text", message.text},
                     {"priority", message.priority},
                     {"tags", message.tags},
                     {"sent_at", core::format_rfc3339(core::now())}});
    req.headers = core::standard_webhooks::headers(core::standard_webhooks::signing_key(cfg.value("secret", "")),
                                                   core::standard_webhooks::new_message_id(),
                                                   core::standard_webhooks::unix_now(), req.body);
    req.headers.insert(req.headers.begin(),
                       {{"Content-Type", "application/json"}, {"X-Notify-Event", event_key.value_or("test")}});
  }
  return req;
}

Notifier::Notifier(core::db::Pool& db, asio::any_io_executor executor, NotifySettings settings)
    : db_(db),
      executor_(executor),
      settings_(std::move(settings)),
      client_(executor,
              core::http::ClientOptions{.connect_timeout = std::min(settings_.timeout, std::chrono::milliseconds(5000)),
                                        .total_timeout = settings_.timeout,
                                        .max_retries = 1,
                                        .base_backoff = settings_.retry_delay,
                                        .max_backoff = settings_.retry_delay,
                                        .max_retry_after = std::chrono::seconds(30),
                                        .user_agent = "msp-ops-console/0.1",
                                        .integration = "notifications"}) {}

awaitable<std::vector<Delivery>> Notifier::notify(std::string event_key, Message message) const {
  event_key = core::to_lower(event_key);
  std::vector<Channel> targets;
  try {
    const auto rows = co_await db_.query(kTargets, event_key);
    for (const auto& r : rows)
      targets.push_back({.id = r.get<std::int64_t>(0),
                         .type = std::string(r.text(1)),
                         .name = std::string(r.text(2)),
                         .config = json::parse(r.text(3))});
  } catch (const std::exception& e) {
    core::log::error("notification not sent: its channels could not be read",
                     {{"event_key", event_key}, {"error", e.what()}});
    co_return std::vector<Delivery>{};
  }
  std::vector<Delivery> deliveries(targets.size());
  std::vector<std::function<awaitable<void>()>> sends;
  const std::optional<std::string> key = event_key;
  for (std::size_t i = 0; i < targets.size(); ++i)
    sends.push_back([this, &targets, &deliveries, &message, &key, i]() -> awaitable<void> {
      deliveries[i] = co_await deliver(targets[i], message, key);
    });
  co_await core::async::join_all(executor_, std::move(sends));
  co_return deliveries;
}

awaitable<Delivery> Notifier::send_test(Channel channel) const {
  const std::string label = channel.name.empty() ? channel.type : channel.type + " \"" + channel.name + "\"";
  Message test{.title = "Test from the operations console",
               .text = "This " + label + " channel is set up: notifications will arrive here.",
               .tags = {"white_check_mark"}};
  const std::optional<std::string> no_event;  // a test belongs to no event
  co_return co_await deliver(channel, test, no_event);
}

awaitable<Delivery> Notifier::deliver(const Channel& channel, const Message& message,
                                      const std::optional<std::string>& event_key) const {
  Delivery d;
  try {
    d = co_await send(channel, message, event_key);
  } catch (const std::exception& e) {  // a bug of ours, not the channel's: still recorded
    d = Delivery{
        .channel_id = channel.id, .channel_type = channel.type, .reason = std::string("internal error: ") + e.what()};
  }
  if (!d.delivered)
    core::log::warn("notification not delivered",
                    {{"channel_id", channel.id}, {"channel_type", channel.type}, {"reason", d.reason}});
  co_await record(d, event_key);
  co_return d;
}

awaitable<Delivery> Notifier::send(const Channel& channel, const Message& message,
                                   const std::optional<std::string>& event_key) const {
  Delivery d{.channel_id = channel.id, .channel_type = channel.type};
  OutboundRequest req = build_request(channel, message, event_key, settings_);
  GuardRules rules = settings_.rules_for(channel.type);
  const Clearance clearance = co_await clear_destination(executor_, req.url, std::move(rules));
  if (!clearance.refusal.empty()) {
    d.reason = "refused: " + clearance.refusal;
    co_return d;
  }
  req.resolve = clearance.resolve;
  req.retry_transport_errors = false;  // a POST may have arrived: no duplicate messages
  req.retry_status = [](int status) { return status == 429 || status >= 500; };
  const std::string url = req.url;
  try {
    const auto res = co_await client_.send(std::move(req));
    d.attempts = res.attempts;
    d.http_status = res.status;
    d.delivered = res.ok();
    if (d.delivered && channel.type == "messenger_bot") {
      const auto body = json::parse(res.body, nullptr, false);
      d.delivered = body.is_object() && body.value("ok", false);
    }
    if (!d.delivered) d.reason = failure_reason(channel, res);
  } catch (const core::http::TransportError& e) {
    std::string what = e.what();
    if (const auto at = what.find(url); at != std::string::npos) what.replace(at, url.size(), redacted_url(url));
    d.attempts = 1;
    d.reason = "no response: " + what;
  }
  co_return d;
}

awaitable<void> Notifier::record(const Delivery& d, const std::optional<std::string>& event_key) const {
  try {
    const std::optional<std::int64_t> status = d.http_status;
    co_await db_.query(kRecord, d.channel_id, d.channel_type, event_key, d.delivered, d.attempts, status, d.reason);
  } catch (const std::exception& e) {
    core::log::error(
        "notification delivery not recorded",
        {{"channel_id", d.channel_id}, {"delivered", d.delivered}, {"reason", d.reason}, {"error", e.what()}});
  }
}

}  // namespace ops_console::notify
