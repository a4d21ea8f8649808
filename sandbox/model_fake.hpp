#pragma once
// A fake OpenAI-compatible chat-completions server (facts in ../shared/vendors.md):
// POST /v1/chat/completions with json_schema or json_object structured output, the OpenAI error
// body, usage tokens. The reply is derived from the message: keywords in the user content choose
// the label among those the request's schema allows, so a run over the demo mailbox classifies
// the way a model would, repeatably.
//
// Control routes, under /_sandbox/model:
//   POST /_sandbox/model/reset
//   PUT  /_sandbox/model/faults    {latency_ms, fail, status, retry_after, invalid_json, reject_json_schema}
//   GET  /_sandbox/model/requests  {count, most_in_flight, requests: [{model, temperature,
//                                   response_format, system, user}]} (the last 1,000)
#include "core/http/router.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <deque>
#include <mutex>
#include <string>

namespace sandbox {

struct ModelFaults {
  std::chrono::milliseconds latency{0};
  int fail = 0;      // the next N calls answer `status`
  int status = 500;  // 429 (rate limit, with Retry-After), 500, 503 ...
  int retry_after = 1;
  int invalid_json = 0;             // the next N calls answer content that is not JSON
  bool reject_json_schema = false;  // answer 400 to response_format json_schema, like older servers
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

 private:
  ModelFakeOptions options_;
  mutable std::mutex mutex_;
  ModelFaults faults_;
  std::deque<nlohmann::json> requests_;
  int count_ = 0;
  int in_flight_ = 0;
  int most_in_flight_ = 0;
};

// The label a keyword reading of `text` suggests, and how sure it is (exposed for tests).
std::pair<std::string, double> fake_label(const std::string& text);

}  // namespace sandbox
