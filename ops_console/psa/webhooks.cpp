#include "ops_console/psa/webhooks.hpp"

#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "ops_console/psa/entities.hpp"

namespace ops_console::psa {

using boost::asio::awaitable;
using core::http::Problem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxSourceIp = 45;

constexpr std::string_view kProcessedAlready =
    "SELECT EXISTS (SELECT 1 FROM webhook_events WHERE event_id = $1 AND status = 'processed')";

// One row per event; an event that failed before is overwritten by its retry's outcome, one
// processed already is kept as it is.
constexpr std::string_view kLog = R"sql(
  INSERT INTO webhook_events (event_id, guid, entity_type, entity_id, action, status, error_message, source_ip,
                              user_agent, event_time)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz)
  ON CONFLICT (event_id) DO UPDATE
    SET status = EXCLUDED.status, error_message = EXCLUDED.error_message, source_ip = EXCLUDED.source_ip,
        user_agent = EXCLUDED.user_agent, received_at = now()
  WHERE webhook_events.status = 'failed'
)sql";

// A payload as read: what the log row names, whatever else is wrong with it.
struct Event {
  std::string event_id;
  std::optional<std::string> guid, entity_type, action, event_time;
  std::optional<std::int64_t> entity_id;
  json fields = json::object();
};

std::optional<std::string> string_at(const json& payload, const char* key) {
  const auto it = payload.find(key);
  if (it == payload.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// Autotask sends Id as a number; a numeric string is read too.
std::optional<std::int64_t> id_at(const json& payload) {
  const auto it = payload.find("Id");
  if (it == payload.end()) return std::nullopt;
  if (it->is_number_integer() && it->get<std::int64_t>() > 0) return it->get<std::int64_t>();
  if (it->is_string()) {
    const auto n = core::parse_int64(it->get<std::string>());
    if (n && *n > 0) return n;
  }
  return std::nullopt;
}

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

}  // namespace

std::string source_ip_of(const core::http::Request& req) {
  std::string ip;
  if (const auto forwarded = req.header("x-forwarded-for"); !forwarded.empty())
    ip = std::string(core::trim(forwarded.substr(0, forwarded.find(','))));
  if (ip.empty()) ip = std::string(core::trim(req.header("x-real-ip")));
  if (ip.empty()) ip = req.remote_address;
  return ip.substr(0, kMaxSourceIp);
}

std::string event_id_of(const json& payload) {
  std::string key;
  for (const char* part : {"Guid", "EntityType", "Id", "Action", "SequenceNumber", "EventTime"})
    key += text_of(payload.contains(part) ? payload[part] : json(nullptr)) + "\n";
  return core::sha256_hex(key);
}

WebhookIntake::WebhookIntake(core::db::Pool& db, std::shared_ptr<AutotaskClient> psa, std::string secret)
    : db_(db), psa_(std::move(psa)), secret_(std::move(secret)) {}

// "sha1=<base64>" as Autotask documents it; "sha1=<hex>" accepted too. Constant time.
bool WebhookIntake::signature_ok(const Callout& c) const {
  if (secret_.empty()) return true;
  if (!c.signature || !c.signature->starts_with("sha1=")) return false;
  const std::string_view sent = std::string_view(*c.signature).substr(5);
  if (sent.size() == 40)
    return core::constant_time_equals(core::to_lower(std::string(sent)), core::hmac_sha1_hex(secret_, c.body));
  return core::constant_time_equals(sent, core::hmac_sha1_base64(secret_, c.body));
}

awaitable<Outcome> WebhookIntake::receive(Callout c) {
  if (!signature_ok(c)) {
    core::log::warn("psa webhook refused: bad signature", {{"source_ip", c.source_ip}});
    co_return Outcome{.problem = Problem::unauthorized("the X-Hook-Signature does not match the body")};
  }

  // Read what there is; name the first thing wrong.
  const json payload = json::parse(c.body, nullptr, false);
  Event e;
  std::optional<Problem> malformed;
  if (!payload.is_object()) {
    e.event_id = "malformed:" + core::sha256_hex(c.body);
    malformed = Problem::bad_request("the body is not a JSON object");
  } else {
    e.event_id = event_id_of(payload);
    e.guid = string_at(payload, "Guid");
    e.entity_type = string_at(payload, "EntityType");
    e.action = string_at(payload, "Action");
    e.entity_id = id_at(payload);
    e.event_time = string_at(payload, "EventTime");
    if (e.event_time && !core::parse_rfc3339(*e.event_time)) e.event_time.reset();
    if (payload.contains("Fields") && payload["Fields"].is_object()) e.fields = payload["Fields"];
    if (!e.action || (*e.action != "Create" && *e.action != "Update" && *e.action != "Delete"))
      malformed = Problem::invalid_field("Action", "must be Create, Update or Delete");
    else if (!e.entity_type)
      malformed = Problem::invalid_field("EntityType", "is required");
    else if (!e.entity_id)
      malformed = Problem::invalid_field("Id", "must be a positive integer");
    else if (payload.contains("Fields") && !payload["Fields"].is_object())
      malformed = Problem::invalid_field("Fields", "must be an object");
  }

  const Entity* entity = e.entity_type ? entity_named(*e.entity_type) : nullptr;
  if (entity && entity->webhook.empty()) entity = nullptr;   // copied, but never by webhook
  if (entity) e.entity_type = std::string(entity->webhook);  // one spelling in the log

  std::optional<Problem> failure = malformed;
  std::string error;
  if (!failure) {
    const auto done = co_await db_.query(kProcessedAlready, e.event_id);
    if (done.front().get<bool>(0)) co_return Outcome{.body = {{"status", "duplicate"}, {"event_id", e.event_id}}};
  }
  if (!failure && !entity)
    failure = Problem(core::http::Status::unprocessable_entity, "unsupported-entity",
                      "the console does not copy " + *e.entity_type + " from the PSA",
                      {{"EntityType",
                        "must be one of Company, Contact, ConfigurationItem, Contract, Project, Task, "
                        "Ticket, TimeEntry"}});
  if (!failure) {
    try {
      if (*e.action == "Delete") {
        co_await db_.query(entity->delete_sql, *e.entity_id);
      } else {
        const json row = to_row(*entity, e.fields);
        bool applied = false;
        if (!row.empty()) {
          const auto patched = co_await db_.query(entity->patch_sql, *e.entity_id, row);
          applied = !patched.empty();
        }
        if (!applied) {  // the copy lacks the row (or the callout named no field): the PSA has it whole
          if (!psa_)
            throw PsaError("the copy lacks " + *e.entity_type + " " + std::to_string(*e.entity_id) +
                           " and the PSA is not configured to fetch it");
          const auto item = co_await psa_->get(std::string(entity->name), *e.entity_id);
          if (!item) throw PsaError("the PSA has no " + *e.entity_type + " " + std::to_string(*e.entity_id));
          const json rows = json::array({to_row(*entity, *item)});
          co_await db_.query(entity->upsert_sql, rows);
        }
      }
    } catch (const PsaError& x) {
      failure = Problem(core::http::Status::bad_gateway, "psa-failed", x.what());
    }
  }
  if (failure) error = failure->detail();
  const std::string status = failure ? "failed" : "processed";
  std::optional<std::string> error_message;
  if (failure) error_message = error;
  co_await db_.query(kLog, e.event_id, e.guid, e.entity_type, e.entity_id, e.action, status, error_message, c.source_ip,
                     c.user_agent, e.event_time);
  if (failure) {
    core::log::warn("psa webhook failed", {{"event_id", e.event_id}, {"error", error}});
    co_return Outcome{.problem = std::move(failure)};
  }
  co_return Outcome{.body = {{"status", "processed"}, {"event_id", e.event_id}}};
}

}  // namespace ops_console::psa
