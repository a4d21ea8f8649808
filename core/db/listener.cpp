#include "core/db/listener.hpp"

#include "core/db/errors.hpp"
#include "core/log/log.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <mutex>

namespace core::db {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

// What the loop and stop() share. The loop runs on `strand`, and stop() posts the backoff timer's
// cancel there, so the cancel cannot run between the loop's look at `stopped` and the start of its
// wait (as in the pool).
struct Listener::State {
  State(asio::any_io_executor ex, ListenerOptions o, std::function<void(const std::string&)> notify,
        std::function<void()> connected, std::function<void()> lost)
      : strand(asio::make_strand(ex)),
        options(std::move(o)),
        on_notify(std::move(notify)),
        on_connected(std::move(connected)),
        on_lost(std::move(lost)) {}

  asio::strand<asio::any_io_executor> strand;
  const ListenerOptions options;
  const std::function<void(const std::string&)> on_notify;
  const std::function<void()> on_connected;
  const std::function<void()> on_lost;    // may be empty
  asio::steady_timer* backoff = nullptr;  // the wait in progress; only touched on the strand

  // Also held while a callback runs, so that once stop() returns none is running; recursive
  // because a callback may call stop() (or destroy the listener).
  std::recursive_mutex mutex;
  bool started = false;
  bool stopped = false;
  Connection* connection = nullptr;  // the open one, for stop() to sever

  bool is_stopped() {
    std::lock_guard lock(mutex);
    return stopped;
  }

  template <class F>
  void call(const F& callback) {
    std::lock_guard lock(mutex);
    if (!stopped) callback();
  }

  // Makes the open connection visible to stop() (or severs it at once if stop() came first), and
  // hides it again before it is closed: stop() must never shut down a descriptor libpq has closed
  // and the process may have reused.
  struct Registration {
    Registration(State& s, Connection& c) : state(s) {
      std::lock_guard lock(state.mutex);
      if (state.stopped)
        c.sever();
      else
        state.connection = &c;
    }
    ~Registration() {
      std::lock_guard lock(state.mutex);
      state.connection = nullptr;
    }
    State& state;
  };

  static awaitable<void> run(std::shared_ptr<State> s) {
    auto delay = s->options.retry_min;
    for (;;) {
      std::string failure;
      try {
        co_await s->session(delay);
      } catch (const std::exception& e) {
        failure = e.what();
      }
      if (s->is_stopped()) co_return;
      if (s->on_lost) s->call(s->on_lost);
      log::warn("database listener disconnected; retrying",
                {{"channel", s->options.channel}, {"error", failure}, {"retry_ms", delay.count()}});
      co_await s->pause(delay);
      delay = std::min(delay * 2, s->options.retry_max);
    }
  }

  // One connection, until it fails (or stop() severs it). Resets `delay` once LISTEN is in place.
  awaitable<void> session(std::chrono::milliseconds& delay) {
    const asio::any_io_executor ex = strand;
    auto conn = co_await Connection::open(ex, options.conninfo, options.connect_timeout);
    const Registration registration(*this, *conn);
    const std::string listen = "LISTEN " + conn->escape_identifier(options.channel);
    co_await conn->execute_simple(listen, options.connect_timeout);
    delay = options.retry_min;
    call(on_connected);
    for (;;) {
      const auto batch = co_await conn->notifications();
      for (const auto& n : batch) {
        if (n.channel == options.channel) call([&] { on_notify(n.payload); });
      }
    }
  }

  awaitable<void> pause(std::chrono::milliseconds delay) {
    asio::steady_timer timer(strand, delay);
    if (is_stopped()) co_return;
    backoff = &timer;
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
    backoff = nullptr;
  }
};

Listener::Listener(asio::any_io_executor ex, ListenerOptions o,
                   std::function<void(const std::string& payload)> on_notify, std::function<void()> on_connected,
                   std::function<void()> on_lost)
    : state_(std::make_shared<State>(std::move(ex), std::move(o), std::move(on_notify), std::move(on_connected),
                                     std::move(on_lost))) {}

Listener::~Listener() { stop(); }

void Listener::start() {
  {
    std::lock_guard lock(state_->mutex);
    if (state_->started || state_->stopped) return;
    state_->started = true;
  }
  asio::co_spawn(state_->strand, State::run(state_), asio::detached);
}

void Listener::stop() {
  std::lock_guard lock(state_->mutex);
  if (state_->stopped) return;
  state_->stopped = true;
  if (state_->connection) state_->connection->sever();
  asio::post(state_->strand, [s = state_] {
    if (s->backoff) s->backoff->cancel();
  });
}

}  // namespace core::db
