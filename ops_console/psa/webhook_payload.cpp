#include "ops_console/psa/webhook_payload.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "ops_console/psa/entities.hpp"

namespace ops_console::psa {

using core::http::Problem;
using nlohmann::json;

namespace {

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

std::string event_id_of(const json& payload) {
  std::string key;
  for (const char* part : {"Guid", "EntityType", "Id", "Action", "SequenceNumber", "EventTime"})
    key += text_of(payload.contains(part) ? payload[part] : json(nullptr)) + "\n";
  return core::sha256_hex(key);
}

WebhookEvent read_webhook(std::string_view body) {
  const json payload = json::parse(body, nullptr, false);
  WebhookEvent e;
  if (!payload.is_object()) {
    e.event_id = "malformed:" + core::sha256_hex(body);
    e.malformed = Problem::bad_request("the body is not a JSON object");
    return e;
  }
  e.event_id = event_id_of(payload);
  e.guid = string_at(payload, "Guid");
  e.entity_type = string_at(payload, "EntityType");
  e.action = string_at(payload, "Action");
  e.entity_id = id_at(payload);
  e.event_time = string_at(payload, "EventTime");
  if (e.event_time && !core::parse_rfc3339(*e.event_time)) e.event_time.reset();
  if (payload.contains("Fields") && payload["Fields"].is_object()) e.fields = payload["Fields"];
  if (!e.action || (*e.action != "Create" && *e.action != "Update" && *e.action != "Delete"))
    e.malformed = Problem::invalid_field("Action", "must be Create, Update or Delete");
  else if (!e.entity_type)
    e.malformed = Problem::invalid_field("EntityType", "is required");
  else if (!e.entity_id)
    e.malformed = Problem::invalid_field("Id", "must be a positive integer");
  else if (payload.contains("Fields") && !payload["Fields"].is_object())
    e.malformed = Problem::invalid_field("Fields", "must be an object");

  e.entity = e.entity_type ? webhook_entity(*e.entity_type) : nullptr;
  if (e.entity) e.entity_type = std::string(e.entity->webhook);  // one spelling in the log
  return e;
}

}  // namespace ops_console::psa
