// The load of bench/ops-console-morning (issue 36): signed-in users following the web UI's route
// mix, and PSA webhook callouts at a fixed rate, against one or more ops-console instances.
//
//   morning-load --targets http://127.0.0.1:P1,http://127.0.0.1:P2 --cookies FILE --ids FILE
//                --seconds S --think-ms T --webhook-rate R --webhook-connections N
//                --webhook-secret SECRET --guid G
//
// Users: one per line of --cookies (a session cookie value), each on its own kept connection to
// the targets in turn (user i on target i mod n, as a load balancer would spread them). A user
// opens a page, calls the routes that page calls, one after the other, following the lists'
// cursors as scrolling does, then thinks for an exponentially distributed time of mean --think-ms
// and opens the next page. Pages and their routes (ops_console/ui/src/pages):
//   overview          /api/dashboard/overview, /api/dashboard/trends, /api/dashboard/integration-health,
//                     /api/status/workers
//   mobile dashboard  /api/mobile/dashboard
//   mobile tickets    /api/analyzer/tickets/filter-options, /api/mobile/tickets, then two more pages
//                     (?cursor=<nextCursor>)
//   analyzer feed     /api/mobile/analyzer/feed, then the next page when there is one
//   analyzer tickets  /api/analyzer/tickets/filter-options, /api/analyzer/tickets/list, ?offset=25
// Webhooks: --webhook-connections kept connections share a schedule of --webhook-rate callouts a
// second (open loop: a callout late on its slot is sent at once, and counted late; what is still
// due at the end is not sent, so `rate` says what arrived); each is an
// Autotask "Update" of a ticket whose id is read from --ids, with its own SequenceNumber and the
// Guid --guid, signed with --webhook-secret (X-Hook-Signature: sha1=<base64 HMAC-SHA1>).
// Everything stops sending at the end of --seconds; requests in flight are completed and counted.
// Prints one JSON object: per route {count, p50, p99, max (ms), non2xx, errors}, and the webhooks'
// {sent, acknowledged, non2xx, errors, late, p50, p99, max}.
#include "core/util/digest.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::awaitable;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

struct Target {
  std::string host;
  std::string port;
};

Target parse_target(const std::string& url) {
  const auto rest = url.substr(url.find("://") + 3);
  const auto colon = rest.find(':');
  return {rest.substr(0, colon), rest.substr(colon + 1)};
}

struct Figures {
  std::vector<double> ms;
  std::uint64_t non2xx = 0, errors = 0;

  json summary() const {
    auto sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const auto at = [&](double q) {
      return sorted.empty() ? 0.0 : sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(q * sorted.size()))];
    };
    return {{"count", sorted.size()}, {"p50", at(0.50)},  {"p99", at(0.99)},
            {"max", at(1.0)},         {"non2xx", non2xx}, {"errors", errors}};
  }
};

struct Options {
  std::vector<Target> targets;
  std::vector<std::string> cookies;
  std::vector<std::int64_t> ids;
  std::chrono::milliseconds duration{60000};
  double think_ms = 2000;
  double webhook_rate = 1000;
  int webhook_connections = 16;
  std::string webhook_secret, guid = "bench-morning";
};

// One kept connection to one target; reconnects after a failure.
class Connection {
 public:
  Connection(asio::any_io_executor ex, Target target) : ex_(ex), target_(std::move(target)) {}

  struct Answer {
    unsigned status = 0;  // 0: the request failed
    std::string body;
  };
  awaitable<Answer> send(http::request<http::string_body> req) {
    beast::error_code ec;
    if (!stream_) {
      asio::ip::tcp::resolver resolver(ex_);
      const auto where =
          co_await resolver.async_resolve(target_.host, target_.port, asio::redirect_error(use_awaitable, ec));
      if (ec) co_return Answer{};
      stream_ = std::make_unique<beast::tcp_stream>(ex_);
      co_await stream_->async_connect(where, asio::redirect_error(use_awaitable, ec));
      if (ec) {
        stream_.reset();
        co_return Answer{};
      }
      stream_->socket().set_option(asio::ip::tcp::no_delay(true));
      buffer_.clear();
    }
    req.set(http::field::host, target_.host + ":" + target_.port);
    req.keep_alive(true);
    req.prepare_payload();
    stream_->expires_after(std::chrono::seconds(30));
    co_await http::async_write(*stream_, req, asio::redirect_error(use_awaitable, ec));
    http::response<http::string_body> res;
    if (!ec) co_await http::async_read(*stream_, buffer_, res, asio::redirect_error(use_awaitable, ec));
    if (ec || !res.keep_alive()) {
      stream_.reset();  // closes it; the next request connects again
      if (ec) co_return Answer{};
    }
    co_return Answer{.status = res.result_int(), .body = std::move(res.body())};
  }

 private:
  asio::any_io_executor ex_;
  std::unique_ptr<beast::tcp_stream> stream_;  // null until connected, and after a failure
  beast::flat_buffer buffer_;
  Target target_;
};

class Load {
 public:
  Load(asio::io_context& io, Options o) : io_(io), o_(std::move(o)), end_(Clock::now() + o_.duration) {}

  void start() {
    for (std::size_t i = 0; i < o_.cookies.size(); ++i) {
      ++running_;
      asio::co_spawn(io_, user(i), asio::detached);
    }
    webhook_start_ = Clock::now();
    for (int k = 0; k < o_.webhook_connections && o_.webhook_rate > 0; ++k) {
      ++running_;
      asio::co_spawn(io_, webhooks(k), asio::detached);
    }
  }

  json report() const {
    json routes = json::object();
    for (const auto& [route, f] : routes_) routes[route] = f.summary();
    auto hooks = webhooks_.summary();
    hooks["sent"] = sent_;
    hooks["acknowledged"] = acknowledged_;
    hooks["late"] = late_;
    hooks["rate"] = sent_ / std::chrono::duration<double>(o_.duration).count();
    return {{"routes", routes}, {"webhooks", hooks}};
  }

 private:
  // GET `path` as user `cookie`; the body when it answered 2xx.
  awaitable<std::optional<json>> get(Connection& c, const std::string& cookie, const std::string& label,
                                     const std::string& path) {
    http::request<http::string_body> req{http::verb::get, path, 11};
    req.set(http::field::cookie, "ops_session=" + cookie);
    req.set(http::field::accept, "application/json");
    const auto began = Clock::now();
    const auto answer = co_await c.send(std::move(req));
    auto& f = routes_[label];
    if (answer.status == 0) {
      ++f.errors;
      co_return std::nullopt;
    }
    f.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - began).count());
    if (answer.status < 200 || answer.status > 299) {
      ++f.non2xx;
      co_return std::nullopt;
    }
    co_return json::parse(answer.body, nullptr, false);
  }

  static std::string next_cursor(const std::optional<json>& page) {
    if (!page || !page->is_object() || !page->value("hasMore", false)) return "";
    const auto c = page->find("nextCursor");
    return c != page->end() && c->is_string() ? c->get<std::string>() : "";
  }

  awaitable<void> page(Connection& c, const std::string& cookie, int which) {
    switch (which) {
      case 0:
        co_await get(c, cookie, "/api/dashboard/overview", "/api/dashboard/overview");
        co_await get(c, cookie, "/api/dashboard/trends", "/api/dashboard/trends");
        co_await get(c, cookie, "/api/dashboard/integration-health", "/api/dashboard/integration-health");
        co_await get(c, cookie, "/api/status/workers", "/api/status/workers");
        break;
      case 1:
        co_await get(c, cookie, "/api/mobile/dashboard", "/api/mobile/dashboard");
        break;
      case 2: {
        co_await get(c, cookie, "/api/analyzer/tickets/filter-options", "/api/analyzer/tickets/filter-options");
        auto list = co_await get(c, cookie, "/api/mobile/tickets", "/api/mobile/tickets");
        for (int more = 0; more < 2; ++more) {
          const auto cursor = next_cursor(list);
          if (cursor.empty()) break;
          list = co_await get(c, cookie, "/api/mobile/tickets?cursor=", "/api/mobile/tickets?cursor=" + cursor);
        }
        break;
      }
      case 3: {
        const auto feed = co_await get(c, cookie, "/api/mobile/analyzer/feed", "/api/mobile/analyzer/feed");
        if (const auto cursor = next_cursor(feed); !cursor.empty())
          co_await get(c, cookie, "/api/mobile/analyzer/feed?cursor=", "/api/mobile/analyzer/feed?cursor=" + cursor);
        break;
      }
      default:
        co_await get(c, cookie, "/api/analyzer/tickets/filter-options", "/api/analyzer/tickets/filter-options");
        co_await get(c, cookie, "/api/analyzer/tickets/list", "/api/analyzer/tickets/list");
        co_await get(c, cookie, "/api/analyzer/tickets/list?offset=25", "/api/analyzer/tickets/list?offset=25");
        break;
    }
  }

  awaitable<void> user(std::size_t i) {
    Connection c(io_.get_executor(), o_.targets[i % o_.targets.size()]);
    std::mt19937 random(static_cast<unsigned>(i) * 7919u + 1u);
    std::exponential_distribution<double> think(1.0 / std::max(1.0, o_.think_ms));
    std::uniform_int_distribution<int> pages(0, 4);
    asio::steady_timer timer(io_);
    // Users arrive spread over the first think time, not all at once.
    timer.expires_after(
        std::chrono::milliseconds(static_cast<int>(std::uniform_real_distribution<double>(0, o_.think_ms)(random))));
    beast::error_code ec;
    co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
    while (Clock::now() < end_) {
      co_await page(c, o_.cookies[i], pages(random));
      timer.expires_after(std::chrono::microseconds(static_cast<std::int64_t>(think(random) * 1000)));
      co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
    }
    done();
  }

  awaitable<void> webhooks(int k) {
    Connection c(io_.get_executor(), o_.targets[static_cast<std::size_t>(k) % o_.targets.size()]);
    std::mt19937 random(static_cast<unsigned>(k) * 104729u + 3u);
    std::uniform_int_distribution<std::size_t> pick(0, o_.ids.size() - 1);
    std::uniform_int_distribution<int> status(1, 8), priority(1, 4);
    asio::steady_timer timer(io_);
    const auto slot = std::chrono::duration<double>(static_cast<double>(o_.webhook_connections) / o_.webhook_rate);
    for (std::int64_t n = 0;; ++n) {
      const auto due = webhook_start_ + std::chrono::duration_cast<Clock::duration>(
                                            slot * static_cast<double>(n) +
                                            std::chrono::duration<double>(static_cast<double>(k) / o_.webhook_rate));
      if (due >= end_ || Clock::now() >= end_) break;  // a backlog left at the end is not sent
      if (Clock::now() > due + std::chrono::milliseconds(10)) {
        ++late_;
      } else {
        timer.expires_at(due);
        beast::error_code ec;
        co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
      }
      const std::int64_t sequence = (static_cast<std::int64_t>(k) + 1) * 1'000'000'000 + n;
      const std::string body = json{
          {"Action", "Update"},
          {"Guid", o_.guid},
          {"EntityType", "Ticket"},
          {"Id", o_.ids[pick(random)]},
          {"Fields", {{"Status", std::to_string(status(random))}, {"Priority", std::to_string(priority(random))}}},
          {"EventTime", "2026-11-20T10:00:00Z"},
          {"SequenceNumber",
           sequence}}.dump();
      http::request<http::string_body> req{http::verb::post, "/api/webhooks/psa", 11};
      req.set(http::field::content_type, "application/json");
      req.set(http::field::user_agent, "Autotask-Webhooks/bench");
      if (!o_.webhook_secret.empty())
        req.set("X-Hook-Signature", "sha1=" + core::hmac_sha1_base64(o_.webhook_secret, body));
      req.body() = body;
      ++sent_;
      const auto began = Clock::now();
      const auto answer = co_await c.send(std::move(req));
      if (answer.status == 0) {
        ++webhooks_.errors;
        continue;
      }
      webhooks_.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - began).count());
      if (answer.status >= 200 && answer.status <= 299)
        ++acknowledged_;
      else
        ++webhooks_.non2xx;
    }
    done();
  }

  void done() {
    if (--running_ == 0) io_.stop();
  }

  asio::io_context& io_;
  Options o_;
  Clock::time_point end_, webhook_start_;
  int running_ = 0;
  std::map<std::string, Figures> routes_;
  Figures webhooks_;
  std::uint64_t sent_ = 0, acknowledged_ = 0, late_ = 0;
};

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o;
    std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
      const auto& name = args[i];
      const auto& value = args[i + 1];
      if (name == "--targets") {
        for (std::size_t at = 0; at <= value.size();) {
          const auto comma = std::min(value.find(',', at), value.size());
          o.targets.push_back(parse_target(value.substr(at, comma - at)));
          at = comma + 1;
        }
      } else if (name == "--cookies") {
        o.cookies = lines_of(value);
      } else if (name == "--ids") {
        for (const auto& line : lines_of(value)) o.ids.push_back(std::stoll(line));
      } else if (name == "--seconds") {
        o.duration = std::chrono::milliseconds(static_cast<std::int64_t>(std::stod(value) * 1000));
      } else if (name == "--think-ms") {
        o.think_ms = std::stod(value);
      } else if (name == "--webhook-rate") {
        o.webhook_rate = std::stod(value);
      } else if (name == "--webhook-connections") {
        o.webhook_connections = std::stoi(value);
      } else if (name == "--webhook-secret") {
        o.webhook_secret = value;
      } else if (name == "--guid") {
        o.guid = value;
      } else {
        throw std::runtime_error("unknown option " + name);
      }
    }
    if (o.targets.empty() || o.ids.empty()) throw std::runtime_error("--targets and --ids are required");
    asio::io_context io(1);
    Load load(io, o);
    load.start();
    io.run();
    std::cout << load.report().dump(2) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "morning-load: " << e.what() << "\n";
    return 2;
  }
}
