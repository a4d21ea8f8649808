#pragma once
// Reading a PSA webhook callout's payload (Autotask: {Action, Guid, EntityType, Id, Fields,
// EventTime, SequenceNumber, PersonID}), apart from applying it: pure, so a fuzz target reads
// outside input through exactly this code (fuzz/fuzz_psa_webhook.cpp).
#include "core/http/problem.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ops_console::psa {

struct Entity;

// A payload as read: what the log row names, whatever else is wrong with it.
struct WebhookEvent {
  std::string event_id;
  std::optional<std::string> guid, entity_type, action, event_time;  // event_time: RFC 3339, else unset
  std::optional<std::int64_t> entity_id;
  nlohmann::json fields = nlohmann::json::object();
  const Entity* entity = nullptr;                // the copied entity it names, when webhooks may change it
  std::optional<core::http::Problem> malformed;  // 400, naming the first field that is wrong
};

WebhookEvent read_webhook(std::string_view body);

// `event_id` of a callout: SHA-256 of the Guid, entity type, entity id, action, SequenceNumber and
// EventTime. Autotask's Guid names the webhook, the same on every callout, so it cannot be the
// event's id alone; a retried callout repeats all six, a later change differs in some.
std::string event_id_of(const nlohmann::json& payload);

}  // namespace ops_console::psa
