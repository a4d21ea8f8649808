#include "mail_triage/classifier/openai.hpp"

namespace mail_triage::classifier {

using boost::asio::awaitable;

OpenAiClassifier::OpenAiClassifier(boost::asio::any_io_executor executor, core::llm::LlmSettings settings,
                                   std::size_t max_body_chars)
    : llm_(std::move(executor), std::move(settings)), max_body_chars_(max_body_chars) {}

awaitable<Classification> OpenAiClassifier::classify(Mail mail, std::optional<SenderHints> hints) {
  core::llm::ChatRequest request{.messages = prompt_messages(mail, hints, core::llm::boundary(), max_body_chars_),
                                 .schema_name = "mail_triage",
                                 .schema = reply_schema(),
                                 .max_tokens = 300};
  core::llm::ChatReply reply;
  try {
    reply = co_await llm_.complete(std::move(request));
  } catch (const core::llm::LlmError& e) {
    throw ClassifierError(e.what());
  }
  Classification c = parse_reply(reply.content);
  c.model = reply.model;
  c.prompt_tokens = reply.prompt_tokens;
  c.completion_tokens = reply.completion_tokens;
  co_return c;
}

}  // namespace mail_triage::classifier
