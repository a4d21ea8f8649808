#pragma once
// A fake OpenAI-compatible chat-completions server (facts in ../shared/vendors.md):
// POST /v1/chat/completions with json_schema or json_object structured output, the OpenAI error
// body, usage tokens (about four characters a token: prompt_tokens from every message's content,
// completion_tokens from the reply or the refusal).
//
// What it answers:
//   - mail-triage's label schema (properties label, confidence, reasoning and no others), a
//     json_object or a plain request: {label, confidence, reasoning}, where keywords in the user
//     content choose the label among those the request's schema allows, so a run over the demo
//     mailbox classifies the way a model would, repeatably.
//   - any other `response_format: {type: "json_schema", json_schema: {schema}}`: a value generated
//     from the schema and valid against it (fake_from_schema): every property of `properties`, an
//     enum value picked by a hash of the user content (different tickets, different categories; the
//     same input, the same answer: tokens that look random, like a per-call boundary marker, are left
//     out of the hash), strings a short sentence from the user content within minLength/maxLength,
//     numbers within minimum/maximum, arrays of two items where minItems/maxItems allow, false for
//     booleans. As OpenAI does, the JSON is a string in choices[0].message.content.
//
// Faults (PUT /_sandbox/model/faults replaces them all; set_faults in-process):
//   latency_ms          added to every call
//   fail, status,       the next `fail` calls answer `status` (429: rate limit with Retry-After:
//   retry_after         retry_after seconds; else server_error)
//   invalid_json        the next N calls answer 200 with content that is not JSON
//   refuse              the next N calls answer 200 with message.refusal set and content null, as
//                       OpenAI's structured outputs do when the model declines
//   reject_json_schema  400 to response_format json_schema, like older servers
//   unknown_models      ["name", ...]: a request for one of these models answers 404
//                       {"error": {"message": "The model `x` does not exist or you do not have access
//                       to it.", "type": "invalid_request_error", "param": null, "code": "model_not_found"}}
//                       (and uses up none of the counts above)
//   echo_credentials,   the 401 of a wrong key and the `fail` errors quote the key received in full
//   error_padding       (a proxy or a local server that does; OpenAI itself quotes "sk-...wxyz"),
//                       and error_padding bytes more (echo.hpp)
// The counts are used up in that order: a call uses a `fail` while there are any, else one of
// invalid_json, else one of refuse; a call refused under reject_json_schema uses only a `fail`.
//
// Control routes, under /_sandbox/model:
//   POST /_sandbox/model/reset
//   PUT  /_sandbox/model/faults    {latency_ms, fail, status, retry_after, invalid_json, refuse,
//                                   reject_json_schema, unknown_models, echo_credentials, error_padding}
//   GET  /_sandbox/model/requests  {count, most_in_flight, requests: [{model, temperature,
//                                   response_format, system, user}]} (the last 1,000)
#include "core/http/router.hpp"
#include "sandbox/echo.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

struct ModelFaults {
  std::chrono::milliseconds latency{0};
  int fail = 0;      // the next N calls answer `status`
  int status = 500;  // 429 (rate limit, with Retry-After), 500, 503 ...
  int retry_after = 1;
  int invalid_json = 0;                     // the next N calls answer content that is not JSON
  bool reject_json_schema = false;          // answer 400 to response_format json_schema, like older servers
  int refuse = 0;                           // the next N calls answer 200 with message.refusal and content null
  std::vector<std::string> unknown_models;  // a request for one of these answers 404 model_not_found
  EchoSwitch echo;                          // errors quote the key received (echo.hpp)
};

struct ModelFakeOptions {
  std::string api_key;  // when set, requests must carry it as a bearer token
};

class ModelFake {
 public:
  explicit ModelFake(ModelFakeOptions options = {}) : options_(std::move(options)) {}
  void install(core::http::Router& router);

  void reset();
  void set_faults(ModelFaults faults);
  nlohmann::json requests() const;
  int request_count() const;
  std::vector<std::string> echoed() const { return echoes_.values(); }  // what errors quoted (echo.hpp)

 private:
  ModelFakeOptions options_;
  mutable std::mutex mutex_;
  ModelFaults faults_;
  std::deque<nlohmann::json> requests_;
  int count_ = 0;
  int in_flight_ = 0;
  int most_in_flight_ = 0;
  Echoes echoes_;
};

// The label a keyword reading of `text` suggests, and how sure it is (exposed for tests).
std::pair<std::string, double> fake_label(const std::string& text);

// A value valid against `schema` (the subset core/json/schema.hpp checks), derived from the user
// content `user` as the chat-completions fake answers a json_schema request (exposed for tests).
nlohmann::json fake_from_schema(const nlohmann::json& schema, std::string_view user);

}  // namespace sandbox
