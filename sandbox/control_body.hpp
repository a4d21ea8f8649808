#pragma once
// What every fake's control routes read from a body: the JSON object (an empty body is {}), and
// integer fields within bounds. One copy for all the fakes.
#include "core/http/message.hpp"
#include "core/util/strings.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace sandbox {

// The body as JSON; an empty body reads as {}; a malformed one as a discarded value.
inline nlohmann::json body_of(const core::http::Request& req) {
  return nlohmann::json::parse(core::trim(req.body).empty() ? std::string_view("{}") : std::string_view(req.body),
                               nullptr, false);
}

// An integer field of a control body within lo..hi into `target`; a message for the 400 otherwise.
// A field that is absent leaves `target` as it is.
inline std::optional<std::string> read_int(const nlohmann::json& body, const char* name, std::int64_t lo,
                                           std::int64_t hi, int& target) {
  if (!body.contains(name)) return std::nullopt;
  const auto& v = body[name];
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
    return std::string(name) + " must be an integer " + std::to_string(lo) + ".." + std::to_string(hi);
  target = v.get<int>();
  return std::nullopt;
}

}  // namespace sandbox
