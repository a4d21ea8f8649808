#pragma once
// The client of the backup service, Datto's BCDR partner REST API v1 (../shared/vendors.md, "Backup:
// Datto BCDR"; the facts, with their sources, in sandbox/datto_fake.hpp): HTTP Basic with the
// partner's public key as user and secret key as password; lists paged by `_page` (from 1) and
// `_perPage`, answered as {pagination: {page, perPage, totalPages, count}, items: [...]}.
//
//   DattoClient datto(executor, settings, health);
//   co_await datto.each_page("/device", [&](json items) -> awaitable<void> { ... });   // items: one page's
//   co_await datto.each_page("/device/" + serial + "/asset", ...);
//
// 429 and 5xx are retried honouring Retry-After (core::http::Client). A failure throws BackupError
// (a Problem 502) whose detail never carries the keys; every call's outcome is recorded for the
// integration-health dashboard (integration key "backup").
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "ops_console/backup/assets.hpp"
#include "ops_console/integrations/health.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ops_console::backup {

struct BackupSettings {
  std::string base_url;  // https://api.datto.com/v1/bcdr
  std::string public_key;
  std::string secret_key;
  std::chrono::milliseconds timeout{30'000};
  int per_page = 100;                 // records a page
  std::chrono::minutes interval{60};  // the scheduled sync; 0: on demand only

  std::vector<std::string> missing() const;
};

// BACKUP_*: the base URL and both keys are set together or not at all (a partly set group refuses
// start, exit 2).
BackupSettings read_backup_settings(core::config::Reader& env);

struct BackupError : core::http::Problem {
  explicit BackupError(std::string detail)
      : Problem(core::http::Status::bad_gateway, "backup-failed", std::move(detail)) {}
};

class DattoClient {
 public:
  using Page = std::function<boost::asio::awaitable<void>(nlohmann::json items)>;

  DattoClient(boost::asio::any_io_executor executor, BackupSettings settings, integrations::Health health);

  // Every page of a list under the base URL, in order: each page's `items`.
  boost::asio::awaitable<void> each_page(std::string path, Page page);

  // This client's calls held back to a health write a second (Health::Burst), for a sync's run.
  integrations::Health::Burst health_burst() const { return health_.burst("backup"); }

 private:
  boost::asio::awaitable<DattoPage> get(std::string path, int page);

  BackupSettings settings_;
  std::string authorization_;
  core::http::Client http_;
  integrations::Health health_;
};

}  // namespace ops_console::backup
