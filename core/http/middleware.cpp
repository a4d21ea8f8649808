#include "core/http/middleware.hpp"

#include "core/db/errors.hpp"
#include "core/http/problem.hpp"
#include "core/log/log.hpp"
#include "core/util/strings.hpp"

#include <atomic>
#include <cstdio>

namespace core::http {

using boost::asio::awaitable;

awaitable<Response> Pipeline::run(Request& req, const Handler& endpoint) const { return step(0, req, endpoint); }

awaitable<Response> Pipeline::step(std::size_t i, Request& req, const Handler& endpoint) const {
  if (i == middleware_.size()) co_return co_await endpoint(req);
  const Handler next = [this, i, &endpoint](Request& r) { return step(i + 1, r, endpoint); };
  co_return co_await middleware_[i](req, next);
}

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
  char suffix[13];
  std::snprintf(suffix, sizeof suffix, "%012llx", static_cast<unsigned long long>(++counter & 0xffff'ffff'ffffULL));
  return prefix + suffix;
}

}  // namespace

Middleware request_id() {
  return [](Request& req, const Handler& next) -> awaitable<Response> {
    const auto given = req.header("X-Request-Id");
    req.request_id = acceptable_request_id(given) ? std::string(given) : next_request_id();
    Response res = co_await next(req);
    res.headers.set("X-Request-Id", req.request_id);
    co_return res;
  };
}

Middleware access_log() {
  return [](Request& req, const Handler& next) -> awaitable<Response> {
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
  return [](Request& req, const Handler& next) -> awaitable<Response> {
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
