#pragma once
// The outcome of every call an integration's client makes (issue 20), in integration_health
// (migration 0014): last success, last failure with its error, the latency of the last call, and
// counts. The integration-health dashboard reads it.
//
//   Health health(db);
//   const auto started = Health::clock::now();
//   ... the call ...
//   co_await health.record("mfa", started, std::nullopt);          // a success
//   co_await health.record("mfa", started, "HTTP 503: ...");       // a failure and its error
//
// Recording never fails the call it records: a database error is logged and dropped.
#include "core/db/pool.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace ops_console::integrations {

class Health {
 public:
  using clock = std::chrono::steady_clock;
  explicit Health(core::db::Pool& db) : db_(db) {}

  // `error`: nullopt for a success; else what failed, in words that carry no secret.
  boost::asio::awaitable<void> record(std::string key, clock::time_point started, std::optional<std::string> error);

 private:
  core::db::Pool& db_;
};

}  // namespace ops_console::integrations
