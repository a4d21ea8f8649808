#pragma once
// Which integrations are switched off (issue 6).
//
//   Registry registry(db, {.env_disabled = parse_disabled_list(env.list("INTEGRATIONS_DISABLED", ...))});
//   const auto off = co_await registry.disabled();    // {"distributor", ...}
//   registry.clear_cache();   // on NOTIFY integration_settings, and after a PATCH
//
// The effective disabled set is the union of INTEGRATIONS_DISABLED and the rows of
// `integration_settings` with disabled = true. The rows are cached in process for `cache_ttl`;
// the cache is dropped whenever the table changes (a trigger announces every change on the
// channel `integration_settings`, and each instance listens), so a change applies everywhere at
// once. When the table is missing or the database cannot be reached, the environment list alone
// applies; that answer is kept for `fallback_ttl` so a database outage does not make every
// request wait for a connection.
//
// This is the "health cache" of the spec: the integration-health dashboard keeps its results
// here as well when it arrives, and they are dropped together.
#include "core/db/pool.hpp"
#include "core/http/problem.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ops_console::integrations {

struct Integration {
  std::string_view key;                   // the row key in integration_settings
  std::string_view label;                 // what the product is, for the admin page
  std::vector<std::string_view> aliases;  // other names accepted in INTEGRATIONS_DISABLED and PATCH
};

// The thirteen integrations the console seeds (migration 0004), in display order.
const std::vector<Integration>& known_integrations();

// The key an integration name stands for: lowercased, '-' and ' ' read as '_', aliases resolved
// ("Pax8" → "distributor", "autotask" → "psa"). Unknown names come back normalised but otherwise
// unchanged, so an unknown name in the environment still disables a key of that name.
std::string canonical_key(std::string_view name);

// 503 "<what> is not configured: A, B are unset": what an integration's routes answer while
// settings they need are missing (named, their values never).
core::http::Problem not_configured(std::string_view what, const std::vector<std::string>& missing);

// The handler of an integration's "start a sync" route, the one rule every such route follows:
// switched off → 403 (first), not configured (no `start`) → 503 naming `missing`, a run under way
// on any instance → 409, else 202 {started: true} and the run goes on in the background.
struct SyncRoute {
  std::string key;      // the integration's key: "backup"
  std::string name;     // as the 403 names it: "remote-management"
  std::string service;  // as the 503 names it: "the backup service"
  std::string run;      // as the 409 names it: "a backup sync"
  std::vector<std::string> missing;
};
class Registry;
core::http::Handler start_sync_handler(std::shared_ptr<Registry> registry, SyncRoute route,
                                       std::function<boost::asio::awaitable<bool>()> start);

// INTEGRATIONS_DISABLED's pieces, each made canonical.
std::set<std::string> parse_disabled_list(const std::vector<std::string>& names);

inline constexpr std::string_view kChannel = "integration_settings";

struct RegistryOptions {
  std::set<std::string> env_disabled;
  std::chrono::milliseconds cache_ttl{std::chrono::seconds(60)};
  std::chrono::milliseconds fallback_ttl{std::chrono::seconds(5)};
};

class Registry {
 public:
  Registry(core::db::Pool& db, RegistryOptions options) : db_(db), options_(std::move(options)) {}

  // The effective disabled set: environment ∪ database rows (environment alone without a database).
  boost::asio::awaitable<std::set<std::string>> disabled();

  const std::set<std::string>& env_disabled() const { return options_.env_disabled; }

  // Problem 403 "the <name> integration is switched off" while `key` is disabled: what an
  // integration's routes check first, before anything else.
  boost::asio::awaitable<void> require_enabled(std::string key, std::string name);

  // Drops the cached rows (and, later, cached health), so the next question reads the database.
  void clear_cache();

 private:
  struct Cached {
    std::set<std::string> disabled;
    std::chrono::steady_clock::time_point until;
  };
  core::db::Pool& db_;
  RegistryOptions options_;
  std::mutex mutex_;
  std::optional<Cached> cached_;
  std::uint64_t generation_ = 0;  // bumped by clear_cache(), so a read racing a clear is not kept
};

}  // namespace ops_console::integrations
