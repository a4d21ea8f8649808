#pragma once
// CLASSIFIER=openai: any OpenAI-compatible chat-completions server, through core::llm::ChatClient
// (shared with ops-console's analyzer; its header says how it asks and retries).
//
// The request asks for JSON-schema structured output (label from the fixed set, confidence
// 0..1, reasoning). The reply is validated whatever the server promised. The mail goes in the user message between
// boundary markers chosen at random per request, and the system prompt tells the model it is
// data; the sender profile, which is ours, goes in the system prompt. What the client cannot
// turn into a valid reply is a ClassifierError.
#include "core/llm/chat.hpp"
#include "mail_triage/classifier/chat.hpp"

namespace mail_triage::classifier {

class OpenAiClassifier : public Classifier {
 public:
  OpenAiClassifier(boost::asio::any_io_executor executor, core::llm::LlmSettings settings,
                   std::size_t max_body_chars = 8000);  // the mail body is cut there
  boost::asio::awaitable<Classification> classify(Mail mail, std::optional<SenderHints> hints) override;

 private:
  core::llm::ChatClient llm_;
  std::size_t max_body_chars_;
};

}  // namespace mail_triage::classifier
