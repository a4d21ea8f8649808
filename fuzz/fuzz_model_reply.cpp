// The language model's answer (mail_triage/classifier/chat.hpp), read as a whole chat-completions
// body and as the reply text alone: never crashes, and whatever is accepted has a label from the
// set and a confidence between 0 and 1.
#include "mail_triage/classifier/chat.hpp"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_reply(text);
  const auto answer = nlohmann::json::parse(text, nullptr, false);
  if (answer.is_discarded()) return 0;
  try {
    check_reply(mail_triage::classifier::reply_content(answer));
  } catch (const ClassifierError&) {
  }
  if (mail_triage::classifier::token_count(answer, "prompt_tokens") < 0) std::abort();
  return 0;
}
