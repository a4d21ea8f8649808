#include "mail_triage/classifier/openai.hpp"

#include "core/util/strings.hpp"

namespace mail_triage::classifier {

using boost::asio::awaitable;
using core::http::OutboundRequest;
using core::http::OutboundResponse;
using nlohmann::json;

namespace {

std::string error_message(const OutboundResponse& res) {
  const auto body = json::parse(res.body, nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_object())
    return body["error"].value("message", std::string()) +
           (body["error"].contains("code") && body["error"]["code"].is_string()
                ? " (" + body["error"]["code"].get<std::string>() + ")"
                : "");
  return res.body.substr(0, 200);
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

OpenAiClassifier::OpenAiClassifier(boost::asio::any_io_executor executor, OpenAiSettings settings)
    : settings_(std::move(settings)),
      http_(std::move(executor), core::http::ClientOptions{.total_timeout = settings_.timeout}) {}

awaitable<Classification> OpenAiClassifier::classify(Mail mail, std::optional<SenderHints> hints) {
  const json messages = prompt_messages(mail, hints, core::random_hex(8), settings_.max_body_chars);
  for (int round = 0; round < 2; ++round) {
    const bool schema = !json_schema_refused_.load();
    json body = {{"model", settings_.model},
                 {"messages", messages},
                 {"temperature", settings_.temperature},
                 {"max_tokens", 300}};
    body["response_format"] =
        schema ? json{{"type", "json_schema"},
                      {"json_schema", {{"name", "mail_triage"}, {"strict", true}, {"schema", reply_schema()}}}}
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
      throw ClassifierError(std::string("language model unreachable: ") + e.what());
    }
    if (schema && refuses_json_schema(res)) {
      json_schema_refused_ = true;  // ask this server with json_object from now on
      continue;
    }
    if (!res.ok())
      throw ClassifierError("language model answered " + std::to_string(res.status) + ": " + error_message(res));
    const auto answer = json::parse(res.body, nullptr, false);
    Classification c = parse_reply(reply_content(answer));
    c.model =
        answer.contains("model") && answer["model"].is_string() ? answer["model"].get<std::string>() : settings_.model;
    c.prompt_tokens = token_count(answer, "prompt_tokens");
    c.completion_tokens = token_count(answer, "completion_tokens");
    co_return c;
  }
  throw ClassifierError("the language model refused both json_schema and json_object output");
}

}  // namespace mail_triage::classifier
