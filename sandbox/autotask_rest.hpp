#pragma once
// Shapes shared by the parts of the Autotask fake (autotask_fake*.cpp): Autotask's error body and
// a row as its REST API renders one.
#include "core/http/message.hpp"
#include "sandbox/autotask_schema.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace sandbox::autotask {

// {"errors": [message]}, Autotask's error body for every status.
core::http::Response error(int status, std::string message);

// Every field of the entity, null when the row has none, and "userDefinedFields": [] where
// Autotask has them; with `include` (canonical names), only id and those.
nlohmann::json render(const EntitySchema& entity, const nlohmann::json& row);
nlohmann::json render(const EntitySchema& entity, const nlohmann::json& row, const std::vector<std::string>& include);

// The entity a URL names: its plural, case-insensitive ("tickets"); nullptr otherwise.
const EntitySchema* url_entity(std::string_view name);

}  // namespace sandbox::autotask
