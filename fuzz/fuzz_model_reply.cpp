// The language model's answer, read as a whole chat-completions body (core/llm/chat.hpp) and as
// mail-triage's reply text alone (mail_triage/classifier/chat.hpp): never crashes, and whatever is
// accepted has a label from the set and a confidence between 0 and 1. The input as JSON is also
// checked against a ticket-analysis schema (core/json/schema.hpp): never crashes, at most
// max_errors messages, each a JSON pointer and valid UTF-8, and a value with none fits the schema.
#include "core/json/schema.hpp"
#include "core/llm/reply.hpp"
#include "mail_triage/classifier/chat.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace {

using mail_triage::classifier::ClassifierError;

void check_reply(std::string_view text) {
  try {
    const auto c = mail_triage::classifier::parse_reply(text);
    if (!mail_triage::classifier::is_label(c.label) || !(c.confidence >= 0 && c.confidence <= 1)) std::abort();
  } catch (const ClassifierError&) {
  }
}

// What an analyzer asks a model for: an enum, a bounded number, a bounded string, a short list.
const nlohmann::json& analysis_schema() {
  static const nlohmann::json schema = {
      {"type", "object"},
      {"properties",
       {{"category", {{"type", "string"}, {"enum", {"network", "hardware", "software", "account", "other"}}}},
        {"urgency", {{"type", "integer"}, {"minimum", 1}, {"maximum", 5}}},
        {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
        {"summary", {{"type", "string"}, {"minLength", 1}, {"maxLength", 300}}},
        {"nextSteps", {{"type", "array"}, {"maxItems", 5}, {"items", {{"type", "string"}, {"maxLength", 200}}}}},
        {"owner", {{"type", {"string", "null"}}}}}},
      {"required", {"category", "urgency", "summary", "nextSteps"}},
      {"additionalProperties", false}};
  return schema;
}

std::size_t characters(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

void check_schema(const nlohmann::json& value) {
  const auto errors = core::json::schema_errors(analysis_schema(), value, 4);
  if (errors.size() > 4) std::abort();
  for (const auto& e : errors) {
    if (e.empty() || e.front() != '/' || e.find(": ") == std::string::npos) std::abort();
    (void)nlohmann::json(e).dump();  // throws (and the fuzzer reports it) on invalid UTF-8
  }
  if (!errors.empty()) return;
  // Accepted: every rule of the schema holds.
  if (!value.is_object() || value.size() > 6) std::abort();
  const auto& category = value.at("category");
  const auto& allowed = analysis_schema()["properties"]["category"]["enum"];
  if (std::find(allowed.begin(), allowed.end(), category) == allowed.end()) std::abort();
  const auto& urgency = value.at("urgency");
  if (!urgency.is_number() || urgency.get<double>() < 1 || urgency.get<double>() > 5) std::abort();
  const auto& summary = value.at("summary");
  if (!summary.is_string() || characters(summary.get<std::string>()) < 1 ||
      characters(summary.get<std::string>()) > 300)
    std::abort();
  const auto& steps = value.at("nextSteps");
  if (!steps.is_array() || steps.size() > 5) std::abort();
  for (const auto& step : steps)
    if (!step.is_string() || characters(step.get<std::string>()) > 200) std::abort();
  if (value.contains("confidence") && (!value["confidence"].is_number() || value["confidence"].get<double>() < 0 ||
                                       value["confidence"].get<double>() > 1))
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_reply(text);
  const auto answer = nlohmann::json::parse(text, nullptr, false);
  if (answer.is_discarded()) return 0;
  check_schema(answer);
  try {
    check_reply(core::llm::reply_content(answer));
  } catch (const core::llm::LlmError&) {
  }
  if (core::llm::token_count(answer, "prompt_tokens") < 0) std::abort();
  return 0;
}
