#include "sandbox/model_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/util/strings.hpp"

#include <algorithm>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

Response openai_error(int status, std::string message, std::string type, json param = nullptr, json code = nullptr) {
  return Response::json(
      {{"error", {{"message", std::move(message)}, {"type", std::move(type)}, {"param", param}, {"code", code}}}},
      static_cast<Status>(status));
}

struct Rule {
  std::string label;
  std::vector<std::string> words;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> r{
      {"phishing", {"verify your account", "confirm your password", "will be suspended"}},
      {"spam", {"lucky winner", "claim your prize", "without prescription", "a week from home"}},
      {"marketing", {"limited-time offer", "register now", "exclusive offer", "discount"}},
      {"newsletter", {"newsletter", "in this issue"}},
      {"notification", {"automated notification", "do not reply", "[alert]", "expires in"}},
      {"billing", {"invoice", "statement", "payment"}},
      {"sales", {"quote", "pricing"}},
      {"support_request", {"please help", "not working", "cannot", "problem", "issue", "help"}},
      {"personal", {"lunch", "birthday", "photos"}},
  };
  return r;
}

// A token count of the kind a tokenizer gives: about four characters a token.
int tokens(const std::string& s) { return static_cast<int>(s.size() / 4 + 1); }

}  // namespace

std::pair<std::string, double> fake_label(const std::string& text) {
  const std::string lower = core::to_lower(text);
  for (const auto& rule : rules())
    for (const auto& word : rule.words)
      if (lower.find(word) != std::string::npos) return {rule.label, 0.9};
  return {"other", 0.55};
}

void ModelFake::reset() {
  std::lock_guard lock(mutex_);
  faults_ = {};
  requests_.clear();
  count_ = most_in_flight_ = 0;
}

void ModelFake::set_faults(ModelFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

int ModelFake::request_count() const {
  std::lock_guard lock(mutex_);
  return count_;
}

json ModelFake::requests() const {
  std::lock_guard lock(mutex_);
  return {{"count", count_}, {"most_in_flight", most_in_flight_}, {"requests", json(requests_)}};
}

void ModelFake::install(core::http::Router& router) {
  router.post("/v1/chat/completions", [this](Request& req) -> awaitable<Response> {
    if (!options_.api_key.empty() &&
        !core::constant_time_equals(req.header("authorization"), "Bearer " + options_.api_key))
      co_return openai_error(401, "Incorrect API key provided.", "invalid_request_error", nullptr, "invalid_api_key");
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object())
      co_return openai_error(400, "We could not parse the JSON body of your request.", "invalid_request_error");
    if (!body.contains("model") || !body["model"].is_string())
      co_return openai_error(400, "you must provide a model parameter", "invalid_request_error", "model");
    if (!body.contains("messages") || !body["messages"].is_array() || body["messages"].empty())
      co_return openai_error(400, "'messages' must be a non-empty array", "invalid_request_error", "messages");
    std::string system, user;
    for (const auto& m : body["messages"]) {
      if (!m.is_object() || !m.contains("content") || !m["content"].is_string()) continue;
      (m.value("role", "") == "system" ? system : user) += m["content"].get<std::string>();
    }
    const json format = body.value("response_format", json::object());
    const std::string format_type = format.is_object() ? format.value("type", "text") : "text";

    ModelFaults faults;
    {
      std::lock_guard lock(mutex_);
      ++count_;
      most_in_flight_ = std::max(most_in_flight_, ++in_flight_);
      requests_.push_back({{"model", body["model"]},
                           {"temperature", body.value("temperature", json())},
                           {"response_format", format_type},
                           {"system", system},
                           {"user", user}});
      if (requests_.size() > 1000) requests_.pop_front();
      faults = faults_;
      if (faults_.fail > 0)
        --faults_.fail;
      else if (faults_.invalid_json > 0)
        --faults_.invalid_json;
    }
    struct Leave {
      ModelFake* self;
      ~Leave() {
        std::lock_guard lock(self->mutex_);
        --self->in_flight_;
      }
    } leave{this};

    co_await core::async::sleep_for(faults.latency);
    if (faults.fail > 0) {
      if (faults.status == 429) {
        auto res = openai_error(429, "Rate limit reached for requests", "requests", nullptr, "rate_limit_exceeded");
        res.headers.set("Retry-After", std::to_string(faults.retry_after));
        co_return res;
      }
      co_return openai_error(faults.status, "The server had an error while processing your request.", "server_error");
    }
    if (format_type == "json_schema" && faults.reject_json_schema)
      co_return openai_error(
          400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
          "invalid_request_error", "response_format");
    if (format_type == "json_object" && core::to_lower(system + user).find("json") == std::string::npos)
      co_return openai_error(
          400, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
          "invalid_request_error", "messages");

    // The labels the caller's schema allows; the keyword reading picks among them.
    auto [label, confidence] = fake_label(user);
    if (format_type == "json_schema") {
      const auto allowed = format.value("/json_schema/schema/properties/label/enum"_json_pointer, json::array());
      if (allowed.is_array() && !allowed.empty() && std::find(allowed.begin(), allowed.end(), label) == allowed.end()) {
        label = allowed.back().get<std::string>();
        confidence = 0.5;
      }
    }
    std::string content =
        json{{"label", label}, {"confidence", confidence}, {"reasoning", "The message reads like " + label + " mail."}}
            .dump();
    if (faults.invalid_json > 0) content = "Sure! Here is the classification: " + label;
    co_return Response::json({{"id", "chatcmpl-" + core::random_hex(12)},
                              {"object", "chat.completion"},
                              {"created", std::chrono::duration_cast<std::chrono::seconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count()},
                              {"model", body["model"]},
                              {"choices",
                               {{{"index", 0},
                                 {"message", {{"role", "assistant"}, {"content", content}, {"refusal", nullptr}}},
                                 {"finish_reason", "stop"}}}},
                              {"usage",
                               {{"prompt_tokens", tokens(system + user)},
                                {"completion_tokens", tokens(content)},
                                {"total_tokens", tokens(system + user) + tokens(content)}}}});
  });

  router.post("/_sandbox/model/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });
  router.put("/_sandbox/model/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) co_return openai_error(400, "body must be a JSON object", "invalid_request_error");
    ModelFaults f;
    f.latency = std::chrono::milliseconds(body.value("latency_ms", 0));
    f.fail = body.value("fail", 0);
    f.status = body.value("status", 500);
    f.retry_after = body.value("retry_after", 1);
    f.invalid_json = body.value("invalid_json", 0);
    f.reject_json_schema = body.value("reject_json_schema", false);
    set_faults(f);
    co_return Response::empty();
  });
  router.get("/_sandbox/model/requests",
             [this](Request&) -> awaitable<Response> { co_return Response::json(requests()); });
}

}  // namespace sandbox
