#pragma once
// Reading a chat-completions answer: pure (no I/O), so it is fuzzed (fuzz/fuzz_model_reply.cpp).
// core/llm/chat.hpp sends the requests.
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace core::llm {

struct LlmError : std::runtime_error {
  LlmError(std::string message, int status = 0, std::string code = {})
      : std::runtime_error(std::move(message)), status(status), code(std::move(code)) {}
  int status;        // the server's HTTP status; 0 when it answered 200 with an unusable reply or was unreachable
  std::string code;  // error.code of the server's error body ("model_not_found", ...), or "refusal", "invalid_reply"
};

// The first choice's message content of a chat-completions answer; a refusal or a missing
// message throws LlmError.
std::string reply_content(const nlohmann::json& answer);
// usage.<field> when the server reports it as a count, else 0 (usage is informational).
int token_count(const nlohmann::json& answer, const char* field);
// The reply text as JSON: fences (```json ... ```) some servers add are dropped; not JSON →
// a discarded value.
nlohmann::json reply_json(std::string_view content);
}  // namespace core::llm
