#include "core/llm/chat.hpp"

#include "core/json/schema.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

namespace core::llm {

using boost::asio::awaitable;
using core::http::OutboundRequest;
using core::http::OutboundResponse;
using nlohmann::json;

namespace {

// The server's error body: {"error": {"message", "type", "param", "code"}}.
//
// Its words may quote the key (issue 31, part 4). The whole key is masked by core::secrets, which
// remembers LLM_API_KEY as it is read, and the text is masked before it is cut, so no cut leaves
// the head of a key behind. OpenAI itself quotes a refused key only in part ("Incorrect API key
// provided: sk-proj-********************wxyz"): the kind prefix and the last four characters, the
// same fragment its own dashboard shows to tell keys apart. That fragment is kept on purpose: it
// cannot be used as a key, and it tells an operator which key was refused (an old one, another
// project's). A server that quotes more of the key than that is masked as a whole.
LlmError server_error(const OutboundResponse& res) {
  const auto body = json::parse(res.body, nullptr, false);
  std::string message = core::secrets::quote(res.body, 200), code;
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    const auto& error = body["error"];
    message = error.contains("message") && error["message"].is_string()
                  ? core::secrets::quote(error["message"].get<std::string>(), 500)
                  : std::string();
    if (error.contains("code") && error["code"].is_string())
      code = core::secrets::quote(error["code"].get<std::string>(), 100);
  }
  return LlmError("language model answered " + std::to_string(res.status) + ": " + message +
                      (code.empty() ? "" : " (" + code + ")"),
                  res.status, code);
}

bool refuses_json_schema(const OutboundResponse& res) {
  if (res.status != 400 && res.status != 422) return false;
  const std::string text = core::to_lower(res.body);
  return text.find("response_format") != std::string::npos || text.find("json_schema") != std::string::npos;
}

// A 429 that means "quota exhausted" will not pass by waiting.
bool worth_retrying(const OutboundResponse& res) {
  return res.status != 429 || res.body.find("insufficient_quota") == std::string::npos;
}

}  // namespace

LlmSettings read_llm_settings(core::config::Reader& env) {
  LlmSettings s;
  s.base_url = env.string("LLM_BASE_URL", "", "OpenAI-compatible chat-completions server, without /v1 (unset: none)");
  while (s.base_url.ends_with('/')) s.base_url.pop_back();
  s.api_key = env.secret("LLM_API_KEY", "bearer key for the language model server (may be empty for local servers)");
  s.model = env.string("LLM_MODEL", "gpt-4o-mini", "model name sent with each request");
  s.timeout = std::chrono::seconds(env.integer("LLM_TIMEOUT_SECONDS", 30, "per model request", {1, 600}));
  return s;
}

ChatClient::ChatClient(boost::asio::any_io_executor executor, LlmSettings settings, core::http::Outcome outcome)
    : settings_(std::move(settings)),
      http_(std::move(executor), core::http::ClientOptions{.total_timeout = settings_.timeout, .integration = "llm"}),
      outcome_(std::move(outcome)) {}

// One logical call, whatever its rounds (json_schema refused, then json_object): one outcome.
awaitable<ChatReply> ChatClient::complete(ChatRequest request) {
  co_return co_await core::http::observed<ChatReply>(outcome_, [&] { return exchange(std::move(request)); });
}

awaitable<ChatReply> ChatClient::exchange(ChatRequest request) {
  const std::string model = request.model.empty() ? settings_.model : request.model;
  for (int round = 0; round < 2; ++round) {
    const bool schema = !json_schema_refused_.load();
    json body = {{"model", model},
                 {"messages", request.messages},
                 {"temperature", settings_.temperature},
                 {"max_tokens", request.max_tokens}};
    body["response_format"] =
        schema ? json{{"type", "json_schema"},
                      {"json_schema", {{"name", request.schema_name}, {"strict", true}, {"schema", request.schema}}}}
               : json{{"type", "json_object"}};
    OutboundRequest req;
    req.method = "POST";
    req.url = settings_.base_url + "/v1/chat/completions";
    req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    if (!settings_.api_key.empty()) req.headers.emplace_back("Authorization", "Bearer " + settings_.api_key);
    req.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    req.retry_if = worth_retrying;
    OutboundResponse res;
    try {
      res = co_await http_.send(std::move(req));
    } catch (const core::http::TransportError& e) {
      throw LlmError(std::string("language model unreachable: ") + e.what());
    }
    if (schema && refuses_json_schema(res)) {
      json_schema_refused_ = true;  // ask this server with json_object from now on
      continue;
    }
    if (!res.ok()) throw server_error(res);
    const auto answer = json::parse(res.body, nullptr, false);
    ChatReply reply;
    reply.content = reply_content(answer);
    reply.value = reply_json(reply.content);
    if (!reply.value.is_object()) throw LlmError("the model's reply is not a JSON object", 0, "invalid_reply");
    if (const auto errors = core::json::schema_errors(request.schema, reply.value); !errors.empty())
      throw LlmError("the model's reply does not fit its schema: " + errors.front(), 0, "invalid_reply");
    reply.model = answer.contains("model") && answer["model"].is_string() ? answer["model"].get<std::string>() : model;
    reply.prompt_tokens = token_count(answer, "prompt_tokens");
    reply.completion_tokens = token_count(answer, "completion_tokens");
    co_return reply;
  }
  throw LlmError("the language model refused both json_schema and json_object output");
}

std::string boundary() { return core::random_hex(8); }

}  // namespace core::llm
