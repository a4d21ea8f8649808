#include "core/db/lease.hpp"

#include "core/log/log.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace core::db {

struct LeaseKeeper::State {
  State(Pool& pool, boost::asio::any_io_executor executor) : db(pool), timer(std::move(executor)) {}
  Pool& db;
  boost::asio::steady_timer timer;
  bool stopped = false;
};

LeaseKeeper::LeaseKeeper(Pool& db, boost::asio::any_io_executor executor, std::string_view renew, std::int64_t id,
                         std::string owner, std::chrono::seconds lease, std::string what)
    : state_(std::make_shared<State>(db, executor)) {
  boost::asio::co_spawn(executor,
                        renew_until_stopped(state_, std::string(renew), id, std::move(owner), lease, std::move(what)),
                        boost::asio::detached);
}

LeaseKeeper::~LeaseKeeper() { stop(); }

void LeaseKeeper::stop() {
  if (state_->stopped) return;
  state_->stopped = true;
  state_->timer.cancel();
}

boost::asio::awaitable<void> LeaseKeeper::renew_until_stopped(std::shared_ptr<State> state, std::string renew,
                                                              std::int64_t id, std::string owner,
                                                              std::chrono::seconds lease, std::string what) {
  const auto every =
      std::max(std::chrono::milliseconds(100), std::chrono::duration_cast<std::chrono::milliseconds>(lease) / 3);
  while (!state->stopped) {
    state->timer.expires_after(every);
    boost::system::error_code ec;
    co_await state->timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    if (state->stopped) break;
    try {
      if ((co_await state->db.query(renew, id, owner, static_cast<std::int64_t>(lease.count()))).empty()) break;
    } catch (const std::exception& e) {
      core::log::warn(what + " lease renewal failed", {{"id", id}, {"error", e.what()}});
    }
  }
}

}  // namespace core::db
