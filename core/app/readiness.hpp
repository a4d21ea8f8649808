#pragma once
// GET /readyz's check, answered within a deadline (issue 37). A load balancer's readiness probe
// gives up after a few seconds; a database that hangs instead of refusing (its processes stopped,
// a network partition that drops packets) would otherwise hold each probe for the pool's statement
// timeout and its cancel grace, over half a minute.
//
//   Readiness readiness(executor, check, std::chrono::seconds(2));
//   if (auto why_not = co_await readiness.ask()) throw Problem::unavailable(*why_not);
//
// One check runs at a time: a probe that comes while one is under way waits for that one's
// outcome rather than starting another (a hung database must not collect a hung check per probe,
// each holding a pooled connection). Each probe waits at most `deadline`; past it the answer is
// "did not answer within ..." and the check goes on alone. Its outcome answers the probes still
// waiting; the first probe after it starts a new check.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace core::app {

class Readiness {
 public:
  // What a check answers: nothing when ready, else why not (the 503's detail). An exception it
  // throws is rethrown to the probes it answers.
  using Check = std::function<boost::asio::awaitable<std::optional<std::string>>()>;

  Readiness(boost::asio::any_io_executor executor, Check check, std::chrono::milliseconds deadline);

  boost::asio::awaitable<std::optional<std::string>> ask();

  std::chrono::milliseconds deadline() const { return deadline_; }
  // How many checks have been started, ever: the tests' measure of "one check for many probes".
  std::uint64_t checks_started() const;

 private:
  struct Flight;
  boost::asio::awaitable<void> run(std::shared_ptr<Flight> flight);

  boost::asio::any_io_executor executor_;
  Check check_;
  std::chrono::milliseconds deadline_;
  mutable std::mutex mutex_;
  std::shared_ptr<Flight> flight_;  // the check under way, if any
  std::uint64_t checks_started_ = 0;
};

}  // namespace core::app
