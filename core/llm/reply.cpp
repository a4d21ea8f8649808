#include "core/llm/reply.hpp"

#include "core/util/strings.hpp"

#include <cstdint>

namespace core::llm {

using nlohmann::json;

std::string reply_content(const json& answer) {
  const json* message = nullptr;
  if (answer.is_object() && answer.contains("choices") && answer["choices"].is_array() && !answer["choices"].empty() &&
      answer["choices"][0].is_object() && answer["choices"][0].contains("message"))
    message = &answer["choices"][0]["message"];
  if (!message || !message->is_object())
    throw LlmError("the language model's answer has no message", 0, "invalid_reply");
  if (message->contains("refusal") && (*message)["refusal"].is_string())
    throw LlmError("the model refused: " + (*message)["refusal"].get<std::string>(), 0, "refusal");
  if (!message->contains("content") || !(*message)["content"].is_string())
    throw LlmError("the language model's answer has no message content", 0, "invalid_reply");
  return (*message)["content"].get<std::string>();
}

int token_count(const json& answer, const char* field) {
  if (!answer.is_object()) return 0;
  const auto usage = answer.find("usage");
  if (usage == answer.end() || !usage->is_object()) return 0;
  const auto n = usage->find(field);
  return n != usage->end() && n->is_number_unsigned() && n->get<std::uint64_t>() <= INT32_MAX ? n->get<int>() : 0;
}

json reply_json(std::string_view content) {
  std::string_view text = core::trim(content);
  if (text.starts_with("```")) {  // some servers fence JSON even when asked not to
    const auto newline = text.find('\n');
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (const auto end = text.rfind("```"); end != std::string_view::npos) text = text.substr(0, end);
  }
  return json::parse(text, nullptr, false);
}

}  // namespace core::llm
