#pragma once
// The client of any OpenAI-compatible chat-completions server (OpenAI, Azure OpenAI, Ollama,
// llama.cpp, vLLM; facts in ../shared/vendors.md), shared by mail-triage's classifier and
// ops-console's analyzer and phishing classification.
//
//   core::llm::ChatClient llm(executor, core::llm::read_llm_settings(env));
//   auto reply = co_await llm.complete({.messages = msgs, .schema_name = "ticket_analysis",
//                                       .schema = schema, .max_tokens = 600});
//   reply.value        // the model's JSON, validated against `schema` (core/json/schema.hpp)
//   reply.prompt_tokens, reply.completion_tokens, reply.model
//
// The request asks for JSON-schema structured output with an explicit temperature. A server
// that rejects `json_schema` (400/422 naming response_format) is asked again with `json_object`,
// and from then on only with that. The reply is validated whatever the server promised. 429 and
// 5xx are retried after Retry-After (not a 429 `insufficient_quota`). Everything else throws
// LlmError, whose message names no key. `outcome` (optional, core/http/outcome.hpp) hears of
// every complete(), a failure by that message; ops-console records it as the analyzer's
// integration health.
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/outcome.hpp"
#include "core/llm/reply.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace core::llm {

struct LlmSettings {
  std::string base_url;  // without /v1; empty: no model configured
  std::string api_key;   // may be empty for local servers
  std::string model = "gpt-4o-mini";
  std::chrono::seconds timeout{30};
  double temperature = 0;

  bool configured() const { return !base_url.empty(); }
};

// LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_TIMEOUT_SECONDS.
LlmSettings read_llm_settings(core::config::Reader& env);

struct ChatRequest {
  nlohmann::json messages;  // [{role, content}, ...]
  std::string schema_name;  // json_schema.name
  nlohmann::json schema;    // the reply's JSON schema (the subset core/json/schema.hpp checks)
  int max_tokens = 500;
  std::string model;  // empty: the settings' model
};

struct ChatReply {
  nlohmann::json value;  // the reply, parsed and valid against the request's schema
  std::string content;   // the reply's text as the server sent it
  std::string model;     // the model that answered
  int prompt_tokens = 0;
  int completion_tokens = 0;
};

class ChatClient {
 public:
  ChatClient(boost::asio::any_io_executor executor, LlmSettings settings, core::http::Outcome outcome = {});
  boost::asio::awaitable<ChatReply> complete(ChatRequest request);
  const LlmSettings& settings() const { return settings_; }

 private:
  LlmSettings settings_;
  core::http::Client http_;
  std::atomic<bool> json_schema_refused_{false};
  core::http::Outcome outcome_;

  boost::asio::awaitable<ChatReply> exchange(ChatRequest request);
};

// A random marker for the boundaries around untrusted text in a prompt.
std::string boundary();

}  // namespace core::llm
