#include "core/http/middleware.hpp"

#include "core/db/errors.hpp"
#include "core/http/problem.hpp"
#include "core/log/log.hpp"
#include "core/util/strings.hpp"

#include <atomic>

namespace core::http {

using boost::asio::awaitable;

awaitable<Response> Pipeline::run(Request& req, const Handler& endpoint) const { return step(0, req, endpoint); }

// Not coroutines: each returns the awaitable of the middleware (or endpoint) it hands over to, whose
// frame holds its `Next` by value.
awaitable<Response> Pipeline::step(std::size_t i, Request& req, const Handler& endpoint) const {
  if (i == middleware_.size()) return endpoint(req);
  return middleware_[i](req, Next(this, i + 1, &endpoint));
}

awaitable<Response> Next::operator()(Request& req) const { return pipeline_->step(i_, req, *endpoint_); }

namespace {

bool acceptable_request_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == ':')) return false;
  return true;
}

// Unique, cheap, not secret: a random prefix per process and a counter (24 hex characters).
std::string next_request_id() {
  static const std::string prefix = random_hex(6);
  static std::atomic<std::uint64_t> counter{0};
  // The counter's low six bytes, most significant first (snprintf's "%012llx" was 0.4-0.5 % of
  // mail-triage's CPU on its hottest route).
  const std::uint64_t n = ++counter;
  char bytes[6];
  for (int i = 0; i < 6; ++i) bytes[i] = static_cast<char>(n >> (8 * (5 - i)));
  return prefix + hex(std::string_view(bytes, sizeof bytes));
}

}  // namespace

Middleware request_id() {
  return [](Request& req, Next next) -> awaitable<Response> {
    const auto given = req.header("X-Request-Id");
    req.request_id = acceptable_request_id(given) ? std::string(given) : next_request_id();
    Response res = co_await next(req);
    res.headers.set("X-Request-Id", req.request_id);
    co_return res;
  };
}

Middleware access_log() {
  return [](Request& req, Next next) -> awaitable<Response> {
    Response res = co_await next(req);
    const auto elapsed = std::chrono::steady_clock::now() - req.received_at;
    log::access({.method = req.method_name,
                 .path = req.path,
                 .status = static_cast<unsigned>(res.status),
                 .duration_ms = std::chrono::duration<double, std::milli>(elapsed).count(),
                 .request_id = req.request_id,
                 .remote = req.remote_address});
    co_return res;
  };
}

Middleware problems() {
  return [](Request& req, Next next) -> awaitable<Response> {
    // A coroutine cannot co_await inside a catch block, so the outcome is captured first.
    std::optional<Problem> problem;
    try {
      Response res = co_await next(req);
      if (static_cast<unsigned>(res.status) < 400 || !res.body.empty()) co_return res;
      problem.emplace(res.status, "error", std::string(bhttp::obsolete_reason(res.status)));
    } catch (const Problem& p) {
      problem = p;
    } catch (const db::Unavailable& e) {
      log::warn("database unavailable", {{"request_id", req.request_id}, {"error", e.what()}});
      problem = Problem::unavailable("the database is unavailable; try again shortly");
    } catch (const db::Timeout& e) {
      log::warn("database timeout", {{"request_id", req.request_id}, {"error", e.what()}});
      problem = Problem::unavailable("the database did not answer in time; try again shortly");
    } catch (const std::exception& e) {
      log::error("unhandled error", {{"request_id", req.request_id}, {"path", req.path}, {"error", e.what()}});
      problem.emplace(Status::internal_server_error, "internal",
                      "an unexpected error occurred; quote request id " + req.request_id);
    }
    co_return problem->to_response(req.request_id);
  };
}

}  // namespace core::http

namespace core::http {

std::string origin_authority(std::string_view origin) {
  std::string_view port;
  if (origin.starts_with("http://")) {
    origin.remove_prefix(7);
    port = ":80";
  } else if (origin.starts_with("https://")) {
    origin.remove_prefix(8);
    port = ":443";
  } else {
    return {};
  }
  if (origin.empty() || origin.find_first_of("/?#@ ") != std::string_view::npos) return {};
  if (origin.ends_with(port)) origin.remove_suffix(port.size());
  std::string out(origin);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

namespace {

// A Host header as origin_authority() writes it: lower case, without the scheme's default port.
std::string host_authority(std::string_view host, bool tls) {
  std::string out(host);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string_view port = tls ? ":443" : ":80";
  if (std::string_view(out).ends_with(port)) out.resize(out.size() - port.size());
  return out;
}

bool changes_state(Verb method) { return method != Verb::get && method != Verb::head && method != Verb::options; }

}  // namespace

Middleware same_origin_writes() {
  return [](Request& req, Next next) -> awaitable<Response> {
    if (changes_state(req.method)) {
      const auto origin = req.header("Origin");
      bool cross_site = req.header("Sec-Fetch-Site") == "cross-site";
      if (!origin.empty() && !cross_site) {
        const auto from = origin_authority(origin);
        const bool tls = origin.starts_with("https://");
        const auto forwarded = req.header("X-Forwarded-Host");
        cross_site = from.empty() || (from != host_authority(req.header("Host"), tls) &&
                                      (forwarded.empty() || from != host_authority(forwarded, tls)));
      }
      if (cross_site)
        throw Problem(Status::forbidden, "cross-site",
                      "a request from another site may not change anything here (its Origin is not this console's)");
    }
    co_return co_await next(req);
  };
}

}  // namespace core::http
