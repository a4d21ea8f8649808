#pragma once
// The outcome of every call an integration's client makes (issue 20), in integration_health
// (migration 0014): last success, last failure with its error, the latency of the last call, and
// counts. The integration-health dashboard reads it.
//
//   Health health(db, executor);                       // copies share one recorder
//   const auto started = Health::clock::now();
//   ... the call ...
//   health.record("mfa", started, std::nullopt);      // a success
//   health.record("mfa", started, "HTTP 503: ...");   // a failure and its error
//   json j = co_await health.observe<json>("mfa", [&] { return client.get(...); });   // the same, around a call
//   GraphClient graph(executor, settings, health.outcome("mailplatform"));  // a core client's every call
//
// record() does not wait for the database: outcomes are gathered per integration and written by
// one statement in the background, the calls that arrive while it runs by the next (a call is
// not slowed by its own bookkeeping; 22 Duo calls of one page view are one or two writes, not 22
// commits). A write that fails is logged and dropped: the health rows are a view of the calls,
// never a reason for one to fail.
//
//   const auto burst = health.burst("backup");   // a sync's many calls in a row (issue 33 item 5)
//
// While a Burst of a key lives, that key's outcomes are written at most once every
// kBurstInterval (by the call that finds the interval over, or with another key's), and what is
// left when its last Burst ends: a run of 1,000 calls one after the other is a few writes, not one
// per call. The row then lags the calls by about the interval while the run lasts and holds every
// call once it is over. Other keys are written as before.
#include "core/db/pool.hpp"
#include "core/http/outcome.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ops_console::integrations {

class Health {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kBurstInterval{1000};
  Health(core::db::Pool& db, boost::asio::any_io_executor executor);

  struct State;
  // The key's writes held back to one a kBurstInterval while it lives; what is pending is written at its end.
  class Burst {
   public:
    Burst(std::shared_ptr<State> state, std::string key);
    Burst(Burst&& other) noexcept = default;
    Burst& operator=(Burst&&) = delete;
    Burst(const Burst&) = delete;
    Burst& operator=(const Burst&) = delete;
    ~Burst();

   private:
    std::shared_ptr<State> state_;
    std::string key_;
  };
  Burst burst(std::string key) const { return Burst(state_, std::move(key)); }

  // `error`: nullopt for a success; else what failed, in words that carry no secret.
  void record(const std::string& key, clock::time_point started, std::optional<std::string> error) const;

  // Runs `call`, records its outcome (a failure by the exception's what(), which the clients keep
  // free of secrets), and answers or rethrows as it did.
  template <class T>
  boost::asio::awaitable<T> observe(std::string key, std::function<boost::asio::awaitable<T>()> call) const {
    return core::http::observed<T>(outcome(std::move(key)), std::move(call));
  }

  // record() for `key`, as a core client's outcome callback (core/http/outcome.hpp): how the Graph
  // and model clients, shared with mail-triage, report their calls here.
  core::http::Outcome outcome(std::string key) const {
    return [health = *this, key = std::move(key)](clock::time_point started, std::optional<std::string> error) {
      health.record(key, started, std::move(error));
    };
  }

 private:
  std::shared_ptr<State> state_;
};

}  // namespace ops_console::integrations
