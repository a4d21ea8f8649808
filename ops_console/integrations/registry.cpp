#include "ops_console/integrations/registry.hpp"

#include "core/db/errors.hpp"
#include "core/http/problem.hpp"
#include "core/log/log.hpp"
#include "core/util/strings.hpp"

#include <algorithm>

namespace ops_console::integrations {

using boost::asio::awaitable;

namespace {

constexpr std::string_view kDisabledRows = "SELECT key FROM integration_settings WHERE disabled";
constexpr std::string_view kUndefinedTable = "42P01";

std::string normalised(std::string_view name) {
  std::string s = core::to_lower(core::trim(name));
  std::replace(s.begin(), s.end(), '-', '_');
  std::replace(s.begin(), s.end(), ' ', '_');
  return s;
}

}  // namespace

const std::vector<Integration>& known_integrations() {
  static const std::vector<Integration> all{
      {"psa", "PSA (Autotask): tickets, companies, contacts, time entries", {"autotask"}},
      {"distributor", "Cloud-subscription distributor (Pax8)", {"pax8"}},
      {"mailsec", "Mail security (Mimecast)", {"mimecast", "mail_security"}},
      {"mfa", "Multi-factor authentication (Cisco Duo)", {"duo", "cisco_duo"}},
      {"accounting", "Accounting (Xero)", {"xero"}},
      {"endpointsec", "Endpoint security (SentinelOne)", {"sentinelone", "s1", "endpoint_security"}},
      {"backup", "Backup (Datto BCDR)", {"datto", "bcdr"}},
      {"mailplatform",
       "Mail platform (Microsoft 365 through Graph): photos, usage reports",
       {"m365", "microsoft365", "office365", "graph", "mail_platform"}},
      {"rmm", "Remote monitoring and management executions", {"remote_management"}},
      {"access_gateway", "Access gateway (configuration-only health row)", {"accessgateway"}},
      {"gitforge", "Source control push events (GitHub, Gitea)", {"github", "gitea"}},
      {"agent", "Agent instances that receive signed push events", {"agents"}},
      {"analyzer", "Ticket analyzer (language model)", {"llm", "openai", "ticket_analyzer"}},
  };
  return all;
}

std::string canonical_key(std::string_view name) {
  std::string s = normalised(name);
  for (const auto& i : known_integrations()) {
    if (s == i.key) return s;
    for (auto alias : i.aliases)
      if (s == alias) return std::string(i.key);
  }
  return s;
}

std::set<std::string> parse_disabled_list(const std::vector<std::string>& names) {
  std::set<std::string> out;
  for (const auto& n : names) {
    std::string key = canonical_key(n);
    if (key.empty()) continue;
    const bool known = std::any_of(known_integrations().begin(), known_integrations().end(),
                                   [&](const Integration& i) { return i.key == key; });
    if (!known) core::log::warn("INTEGRATIONS_DISABLED names an unknown integration", {{"name", n}});
    out.insert(std::move(key));
  }
  return out;
}

void Registry::clear_cache() {
  std::lock_guard lock(mutex_);
  cached_.reset();
  ++generation_;
}

core::http::Problem not_configured(std::string_view what, const std::vector<std::string>& missing) {
  std::string names;
  for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
  return core::http::Problem(
      core::http::Status::service_unavailable, "not-configured",
      std::string(what) + " is not configured: " + names + (missing.size() == 1 ? " is unset" : " are unset"));
}

core::http::Handler start_sync_handler(std::shared_ptr<Registry> registry, SyncRoute route,
                                       std::function<awaitable<bool>()> start) {
  return [registry = std::move(registry), route = std::move(route),
          start = std::move(start)](core::http::Request&) -> awaitable<core::http::Response> {
    co_await registry->require_enabled(route.key, route.name);
    if (!start) throw not_configured(route.service, route.missing);
    if (!co_await start()) throw core::http::Problem::conflict(route.run + " is already under way");
    co_return core::http::Response::json({{"started", true}}, core::http::Status::accepted);
  };
}

awaitable<void> Registry::require_enabled(std::string key, std::string name) {
  const auto off = co_await disabled();
  if (off.contains(key)) throw core::http::Problem::forbidden("the " + name + " integration is switched off");
}

awaitable<std::set<std::string>> Registry::disabled() {
  const auto now = std::chrono::steady_clock::now();
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    if (cached_ && cached_->until > now) co_return cached_->disabled;
    generation = generation_;
  }

  std::set<std::string> result = options_.env_disabled;
  auto ttl = options_.cache_ttl;
  try {
    const auto rows = co_await db_.query(kDisabledRows);
    for (const auto& row : rows) result.insert(row.get<std::string>(0));
  } catch (const core::db::Error& e) {
    if (e.sqlstate != kUndefinedTable) throw;
    core::log::warn("integration_settings is missing; the environment list alone applies");
    ttl = options_.fallback_ttl;
  } catch (const core::db::Unavailable& e) {
    core::log::warn("database unreachable; the environment list of disabled integrations alone applies",
                    {{"error", e.what()}});
    ttl = options_.fallback_ttl;
  } catch (const core::db::Timeout& e) {
    core::log::warn("database timed out; the environment list of disabled integrations alone applies",
                    {{"error", e.what()}});
    ttl = options_.fallback_ttl;
  }

  std::lock_guard lock(mutex_);
  if (generation == generation_) cached_ = Cached{result, std::chrono::steady_clock::now() + ttl};
  co_return result;
}

}  // namespace ops_console::integrations
