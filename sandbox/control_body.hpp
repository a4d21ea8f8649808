#pragma once
// What every fake's control routes read from a body: the JSON object (an empty body is {}), and
// integer fields within bounds. One copy for all the fakes.
#include "core/http/message.hpp"
#include "core/util/strings.hpp"
#include "sandbox/echo.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

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

// `seed`: a non-negative 32-bit integer into `target`; absent leaves it.
inline std::optional<std::string> read_seed(const nlohmann::json& body, std::uint32_t& target) {
  if (!body.contains("seed")) return std::nullopt;
  if (!body["seed"].is_number_unsigned() || body["seed"].get<std::uint64_t>() > 0xFFFFFFFFu)
    return "seed must be a non-negative 32-bit integer";
  target = body["seed"].get<std::uint32_t>();
  return std::nullopt;
}

// The fault switches every fake has (throttle, retry_after, server_errors, status 500..599,
// latency_ms, and echo_credentials and error_padding: echo.hpp) into `f`, a fake's own faults
// struct with those members.
template <class Faults>
std::optional<std::string> read_fault_switches(const nlohmann::json& body, Faults& f) {
  int latency = static_cast<int>(f.latency.count());
  const std::tuple<const char*, int, int, int*> numbers[] = {{"throttle", 0, 1'000'000, &f.throttle},
                                                             {"retry_after", 0, 86'400, &f.retry_after},
                                                             {"server_errors", 0, 1'000'000, &f.server_errors},
                                                             {"status", 500, 599, &f.status},
                                                             {"latency_ms", 0, 600'000, &latency}};
  for (const auto& [name, lo, hi, target] : numbers)
    if (auto bad = read_int(body, name, lo, hi, *target)) return bad;
  f.latency = std::chrono::milliseconds(latency);
  return read_echo_switch(body, f.echo);
}

}  // namespace sandbox
