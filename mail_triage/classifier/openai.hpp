#pragma once
// CLASSIFIER=openai: any OpenAI-compatible chat-completions server (OpenAI, Azure OpenAI,
// Ollama, llama.cpp, vLLM); facts in ../shared/vendors.md.
//
// The request asks for JSON-schema structured output (label from the fixed set, confidence
// 0..1, reasoning) with an explicit temperature. A server that rejects `json_schema` (400 naming
// response_format) is asked again with `json_object`, and from then on only with that. The reply
// is validated whatever the server promised. The mail goes in the user message between
// boundary markers chosen at random per request, and the system prompt tells the model it is
// data; the sender profile, which is ours, goes in the system prompt. 429 and 5xx are retried
// after Retry-After (not a 429 `insufficient_quota`); anything else is a ClassifierError.
#include "core/http/client.hpp"
#include "mail_triage/classifier/chat.hpp"

#include <atomic>

namespace mail_triage::classifier {

struct OpenAiSettings {
  std::string base_url;  // without /v1
  std::string api_key;   // may be empty for local servers
  std::string model = "gpt-4o-mini";
  std::chrono::seconds timeout{30};
  double temperature = 0;
  std::size_t max_body_chars = 8000;  // the mail body is cut there
};

class OpenAiClassifier : public Classifier {
 public:
  OpenAiClassifier(boost::asio::any_io_executor executor, OpenAiSettings settings);
  boost::asio::awaitable<Classification> classify(Mail mail, std::optional<SenderHints> hints) override;

 private:
  OpenAiSettings settings_;
  core::http::Client http_;
  std::atomic<bool> json_schema_refused_{false};
};

}  // namespace mail_triage::classifier
