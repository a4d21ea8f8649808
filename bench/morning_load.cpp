// The load of bench/ops-console-morning (issue 36): signed-in users following the web UI's route
// mix, and PSA webhook callouts at a fixed rate, against one or more ops-console instances.
//
//   morning-load --targets http://127.0.0.1:P1,http://127.0.0.1:P2 --cookies FILE --ids FILE
//                [--warmup W] --seconds S --think-ms T --webhook-rate R --webhook-connections N
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
//   --warmup W   the same load runs W seconds first (default 0), and --seconds follow: what was
//                sent in those W seconds is counted apart, under "warmup" ({seconds, routes,
//                webhooks}, as the window's), not in the window's figures.
//
// For bench/soak, more options:
//   --gitforge-rate R --gitforge-secret S   gitforge pushes (POST /api/webhooks/gitforge, three
//                new commits each, delivery id <guid>-push-<k>-<n>, signed X-Hub-Signature-256 when
//                S is set) at R a second on --gitforge-connections (2), open loop as the callouts;
//                the JSON then has "pushes" beside "webhooks".
//   --trace FILE one line per request, tab-separated: the time it was sent (Unix ms), its class
//                (ui, callout, push), the status (0: no answer: refused, reset, timed out), the
//                latency (ms), the target's index in --targets, and a key: the route for ui, the
//                event_id ops-console derives for a callout (ops_console/psa/webhook_payload.cpp,
//                event_id_of), the delivery id for a push.
// A target that refuses or drops connections (a database down, an instance killed) costs failed
// requests, counted, and the connection is made again for the next one: the load goes on (a
// callout or push connection pauses 100 ms after a failure; its slots meanwhile go late).
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
#include <cstdio>
#include <fstream>
#include <functional>
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
  std::chrono::milliseconds warmup{0};
  double think_ms = 2000;
  double webhook_rate = 1000;
  int webhook_connections = 16;
  std::string webhook_secret, guid = "bench-morning";
  double gitforge_rate = 0;
  int gitforge_connections = 2;
  std::string gitforge_secret, trace;
};

// Writes sent open loop (callouts, pushes) in one phase: their figures and what was acknowledged.
struct Stream {
  Figures figures;
  std::uint64_t sent = 0, acknowledged = 0, late = 0;

  json summary(std::chrono::milliseconds duration) const {
    auto out = figures.summary();
    out["sent"] = sent;
    out["acknowledged"] = acknowledged;
    out["late"] = late;
    out["rate"] = sent / std::chrono::duration<double>(duration).count();
    return out;
  }
};

// A phase's figures: the warm-up's (--warmup) and the window's, apart.
template <class T>
struct Phases {
  T warmup, window;
  T& of(Clock::time_point t, Clock::time_point window_starts) { return t < window_starts ? warmup : window; }
};

// --trace: one line per request (see the top of this file).
class Trace {
 public:
  explicit Trace(const std::string& path) {
    if (!path.empty()) {
      out_.open(path);
      if (!out_) throw std::runtime_error("cannot write " + path);
    }
  }
  void add(Clock::time_point began, const char* cls, unsigned status, std::size_t target, const std::string& key) {
    if (!out_.is_open()) return;
    const auto ms = std::chrono::duration<double, std::milli>(Clock::now() - began).count();
    const auto sent = std::chrono::system_clock::now() -
                      std::chrono::duration_cast<std::chrono::system_clock::duration>(Clock::now() - began);
    const auto unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(sent.time_since_epoch()).count();
    char latency[32];
    std::snprintf(latency, sizeof latency, "%.1f", ms);
    out_ << unix_ms << '\t' << cls << '\t' << status << '\t' << latency << '\t' << target << '\t' << key << '\n';
  }

 private:
  std::ofstream out_;
};

// One kept connection to one target; reconnects after a failure.
class Connection {
 public:
  Connection(asio::any_io_executor ex, const std::vector<Target>& targets, std::size_t index)
      : ex_(ex), target_(targets[index]), index_(index) {}
  std::size_t index() const { return index_; }

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
  std::size_t index_;
};

class Load {
 public:
  Load(asio::io_context& io, Options o)
      : io_(io),
        o_(std::move(o)),
        window_starts_(Clock::now() + o_.warmup),
        end_(window_starts_ + o_.duration),
        trace_(o_.trace) {}

  void start() {
    for (std::size_t i = 0; i < o_.cookies.size(); ++i) {
      ++running_;
      asio::co_spawn(io_, user(i), asio::detached);
    }
    start_ = Clock::now();
    for (int k = 0; k < o_.webhook_connections && o_.webhook_rate > 0; ++k) {
      ++running_;
      asio::co_spawn(io_, open_loop(k, o_.webhook_connections, o_.webhook_rate, "callout", webhooks_, callout_maker(k)),
                     asio::detached);
    }
    for (int k = 0; k < o_.gitforge_connections && o_.gitforge_rate > 0; ++k) {
      ++running_;
      asio::co_spawn(io_, open_loop(k, o_.gitforge_connections, o_.gitforge_rate, "push", pushes_, push_maker(k)),
                     asio::detached);
    }
  }

  json report() const {
    json out = phase(routes_.window, webhooks_.window, pushes_.window, o_.duration);
    if (o_.warmup.count() > 0) {
      out["warmup"] = phase(routes_.warmup, webhooks_.warmup, pushes_.warmup, o_.warmup);
      out["warmup"]["seconds"] = std::chrono::duration<double>(o_.warmup).count();
    }
    return out;
  }

 private:
  json phase(const std::map<std::string, Figures>& routes, const Stream& webhooks, const Stream& pushes,
             std::chrono::milliseconds duration) const {
    json r = json::object();
    for (const auto& [route, f] : routes) r[route] = f.summary();
    json out = {{"routes", r}, {"webhooks", webhooks.summary(duration)}};
    if (o_.gitforge_rate > 0) out["pushes"] = pushes.summary(duration);
    return out;
  }

  // GET `path` as user `cookie`; the body when it answered 2xx.
  awaitable<std::optional<json>> get(Connection& c, const std::string& cookie, const std::string& label,
                                     const std::string& path) {
    http::request<http::string_body> req{http::verb::get, path, 11};
    req.set(http::field::cookie, "ops_session=" + cookie);
    req.set(http::field::accept, "application/json");
    const auto began = Clock::now();
    const auto answer = co_await c.send(std::move(req));
    trace_.add(began, "ui", answer.status, c.index(), label);
    auto& f = routes_.of(began, window_starts_)[label];
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
    Connection c(io_.get_executor(), o_.targets, i % o_.targets.size());
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

  // After a request with no answer, its connection waits this long before its next one.
  static constexpr auto kPauseAfterFailure = std::chrono::milliseconds(100);

  // What an open-loop stream sends: the n-th request of connection k, and the trace's key for it.
  struct Write {
    http::request<http::string_body> req;
    std::string key;
  };
  using Maker = std::function<Write(std::int64_t n)>;

  // Connection k of `connections` sharing a schedule of `rate` requests a second (open loop: a
  // request late on its slot goes at once and is counted late; what is due after the end is not sent).
  awaitable<void> open_loop(int k, int connections, double rate, const char* cls, Phases<Stream>& streams, Maker make) {
    Connection c(io_.get_executor(), o_.targets, static_cast<std::size_t>(k) % o_.targets.size());
    asio::steady_timer timer(io_);
    const auto slot = std::chrono::duration<double>(static_cast<double>(connections) / rate);
    for (std::int64_t n = 0;; ++n) {
      const auto due =
          start_ + std::chrono::duration_cast<Clock::duration>(
                       slot * static_cast<double>(n) + std::chrono::duration<double>(static_cast<double>(k) / rate));
      if (due >= end_ || Clock::now() >= end_) break;  // a backlog left at the end is not sent
      Stream& s = streams.of(due, window_starts_);
      if (Clock::now() > due + std::chrono::milliseconds(10)) {
        ++s.late;
      } else {
        timer.expires_at(due);
        beast::error_code ec;
        co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
      }
      auto write = make(n);
      ++s.sent;
      const auto began = Clock::now();
      const auto answer = co_await c.send(std::move(write.req));
      trace_.add(began, cls, answer.status, c.index(), write.key);
      if (answer.status == 0) {
        // As a sender retrying later would: not a loop of refused connects through the backlog.
        ++s.figures.errors;
        timer.expires_after(kPauseAfterFailure);
        beast::error_code ec;
        co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
        continue;
      }
      s.figures.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - began).count());
      if (answer.status >= 200 && answer.status <= 299)
        ++s.acknowledged;
      else
        ++s.figures.non2xx;
    }
    done();
  }

  // An Autotask "Update" of a ticket read from --ids, signed with --webhook-secret.
  Maker callout_maker(int k) {
    auto random = std::make_shared<std::mt19937>(static_cast<unsigned>(k) * 104729u + 3u);
    return [this, k, random](std::int64_t n) {
      std::uniform_int_distribution<std::size_t> pick(0, o_.ids.size() - 1);
      std::uniform_int_distribution<int> status(1, 8), priority(1, 4);
      const std::int64_t sequence = (static_cast<std::int64_t>(k) + 1) * 1'000'000'000 + n;
      const std::int64_t id = o_.ids[pick(*random)];
      const std::string event_time = "2026-11-20T10:00:00Z";
      const std::string body = json{
          {"Action", "Update"},
          {"Guid", o_.guid},
          {"EntityType", "Ticket"},
          {"Id", id},
          {"Fields", {{"Status", std::to_string(status(*random))}, {"Priority", std::to_string(priority(*random))}}},
          {"EventTime", event_time},
          {"SequenceNumber",
           sequence}}.dump();
      http::request<http::string_body> req{http::verb::post, "/api/webhooks/psa", 11};
      req.set(http::field::content_type, "application/json");
      req.set(http::field::user_agent, "Autotask-Webhooks/bench");
      if (!o_.webhook_secret.empty())
        req.set("X-Hook-Signature", "sha1=" + core::hmac_sha1_base64(o_.webhook_secret, body));
      req.body() = body;
      // The key ops-console stores the callout under (psa::event_id_of): these fields, one a line.
      const auto key = core::sha256_hex(o_.guid + "\nTicket\n" + std::to_string(id) + "\nUpdate\n" +
                                        std::to_string(sequence) + "\n" + event_time + "\n");
      return Write{std::move(req), key};
    };
  }

  // A GitHub push of three new commits, its own delivery id, signed with --gitforge-secret.
  Maker push_maker(int k) {
    return [this, k](std::int64_t n) {
      const std::string delivery = o_.guid + "-push-" + std::to_string(k) + "-" + std::to_string(n);
      json commits = json::array();
      for (int i = 1; i <= 3; ++i) {
        const auto id = core::sha256_hex(delivery + "/" + std::to_string(i)).substr(0, 40);
        commits.push_back({{"id", id},
                           {"message", "Change " + std::to_string(i) + " of " + delivery},
                           {"timestamp", "2026-11-23T10:00:00+00:00"},
                           {"url", "https://github.com/msp/soak/commit/" + id},
                           {"author", {{"name", "Soak"}, {"email", "soak@msp.example"}}}});
      }
      const std::string body = json{
          {"ref", "refs/heads/main"},
          {"repository", {{"name", "soak"}, {"full_name", "msp/soak"}}},
          {"pusher", {{"name", "soak"}, {"email", "soak@msp.example"}}},
          {"commits", commits}}.dump();
      http::request<http::string_body> req{http::verb::post, "/api/webhooks/gitforge", 11};
      req.set(http::field::content_type, "application/json");
      req.set(http::field::user_agent, "GitHub-Hookshot/soak");
      req.set("X-GitHub-Event", "push");
      req.set("X-GitHub-Delivery", delivery);
      if (!o_.gitforge_secret.empty())
        req.set("X-Hub-Signature-256", "sha256=" + core::hmac_sha256_hex(o_.gitforge_secret, body));
      req.body() = body;
      return Write{std::move(req), delivery};
    };
  }

  void done() {
    if (--running_ == 0) io_.stop();
  }

  asio::io_context& io_;
  Options o_;
  Clock::time_point window_starts_, end_, start_;
  int running_ = 0;
  Phases<std::map<std::string, Figures>> routes_;
  Phases<Stream> webhooks_, pushes_;
  Trace trace_;
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
      } else if (name == "--warmup") {
        o.warmup = std::chrono::milliseconds(static_cast<std::int64_t>(std::stod(value) * 1000));
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
      } else if (name == "--gitforge-rate") {
        o.gitforge_rate = std::stod(value);
      } else if (name == "--gitforge-connections") {
        o.gitforge_connections = std::stoi(value);
      } else if (name == "--gitforge-secret") {
        o.gitforge_secret = value;
      } else if (name == "--trace") {
        o.trace = value;
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
