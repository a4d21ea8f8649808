#pragma once
// What the openai classifier says to a chat-completions model and how it reads the answer. Pure
// (no I/O), so the reply side is fuzzed (fuzz/fuzz_model_reply.cpp). Sending, retrying and
// reading the answer's envelope is core::llm::ChatClient's.
#include "mail_triage/classifier/classifier.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mail_triage::classifier {

// The JSON schema of a reply: label from the set, confidence 0..1, reasoning.
nlohmann::json reply_schema();
// The chat messages for one mail: [system, user]. The mail is data between boundary markers.
nlohmann::json prompt_messages(const Mail& mail, const std::optional<SenderHints>& hints, const std::string& boundary,
                               std::size_t max_body_chars);
// Validates the model's reply text; throws ClassifierError saying what was wrong.
Classification parse_reply(std::string_view content);

}  // namespace mail_triage::classifier
