#pragma once
// The morning summary's sending and its schedule (issue 22; README "Morning summary").
//
//   auto summary = std::make_shared<Summary>(db, executor, notifier, registry, flagged, clock);
//   Summary::schedule(ctx, settings.tick, notifier, registry, flagged, clock);  // now, then every tick
//   json entry = co_await summary->send_now(user_id);      // the history entry, results per webhook
//
// Each send is a row of morning_summary_sends (migration 0022), inserted before anything goes out
// and finished with one result per webhook. The scheduled send claims its local date with that
// insert (a unique index on the day of scheduled rows): of any number of instances, one inserts
// the row and sends; the others find the day taken. So a day is sent at most once; a send cut
// short by a crash is not repeated. A send holds a session advisory lock of its own from its claim
// (the same statement) to its end, so the schedule's look (tick()) can tell a send whose instance
// died, its lock gone with the session, and closes its row as failed.
//
// The current instant is the Clock's (dashboard/clock.hpp), bound as $n::timestamptz; whether a
// send is due (a weekday, at or after kSendAt and before kCatchUpUntil local time, the
// configuration enabled, an enabled webhook) and the local date are decided in SQL from it.
//
// Messages go out as the notifications' chat_webhook does (notify::build_request: {"text":
// "*title*\ntext"}), each destination cleared by the notifications' URL guard first, with the
// notifier's settings (timeout, one retry on a 429 or 5xx); nothing is recorded in
// notification_deliveries (its rows belong to notification channels).
#include "core/db/advisory_lock.hpp"
#include "core/db/pool.hpp"
#include "core/http/client.hpp"
#include "ops_console/dashboard/clock.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/mfa/flagged.hpp"
#include "ops_console/notify/notifier.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace core::app {
struct Context;
}

namespace ops_console::morning {

class Summary {
 public:
  Summary(core::db::Pool& db, boost::asio::any_io_executor executor, std::shared_ptr<const notify::Notifier> notifier,
          std::shared_ptr<integrations::Registry> registry, std::shared_ptr<mfa::FlaggedUsers> flagged,
          dashboard::Clock clock);

  // The summary now, to every enabled webhook, whether the schedule is enabled or not: the
  // history entry. Problem 409 when no webhook is enabled (nothing is recorded then).
  boost::asio::awaitable<nlohmann::json> send_now(std::int64_t user_id);

  // A short test message to one webhook, enabled or not: the history entry. Problem 404 when the
  // webhook does not exist.
  boost::asio::awaitable<nlohmann::json> send_test(std::int64_t webhook_id, std::int64_t user_id);

  // The schedule's check: when a send is due and this call claims the day, sends it and returns
  // the history entry; else nothing.
  boost::asio::awaitable<std::optional<nlohmann::json>> tick();

  // Starts the schedule: tick() once now (the catch-up after a start) and then every `interval`,
  // until the service stops, on a Summary with a small pool of its own (as the agent deliveries
  // have): its looks never wait behind requests, nor requests behind them.
  static void schedule(core::app::Context& ctx, std::chrono::milliseconds interval,
                       std::shared_ptr<const notify::Notifier> notifier,
                       std::shared_ptr<integrations::Registry> registry, std::shared_ptr<mfa::FlaggedUsers> flagged,
                       dashboard::Clock clock);

 private:
  struct Claim {
    std::int64_t id = 0;
    std::string timezone;
    std::vector<std::string> sections;
    std::string at;
  };
  struct Target {
    std::int64_t id = 0;
    std::string name;
    std::string url;
  };

  static Claim claim_of(const core::db::Row& row);  // id, timezone, sections, at
  // The send, holding its lock (claim_holding_lock() in summary.cpp) until its row is finished.
  boost::asio::awaitable<nlohmann::json> send_claimed(Claim claim, core::db::AdvisoryLock lock);
  boost::asio::awaitable<nlohmann::json> figures(const Claim& claim, const std::vector<std::string>& disabled);
  boost::asio::awaitable<nlohmann::json> mfa_figures(bool switched_off);
  boost::asio::awaitable<nlohmann::json> deliver_all(std::vector<Target> targets, notify::Message message);
  boost::asio::awaitable<notify::Delivery> deliver(const Target& target, const notify::Message& message) const;
  boost::asio::awaitable<nlohmann::json> finish(std::int64_t id, const notify::Message& message, nlohmann::json results,
                                                std::string error);

  core::db::Pool& db_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<const notify::Notifier> notifier_;
  std::shared_ptr<integrations::Registry> registry_;
  std::shared_ptr<mfa::FlaggedUsers> flagged_;
  dashboard::Clock clock_;
};

}  // namespace ops_console::morning
