#include "ops_console/backup/datto.hpp"

#include "core/util/digest.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

namespace ops_console::backup {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// Datto's words for a failure: {code, message} or {error, message} (sandbox/datto_fake.hpp), or the
// status alone.
std::string datto_reason_of(const core::http::OutboundResponse& res) {
  std::string reason = "HTTP " + std::to_string(res.status);
  const auto body = json::parse(res.body, nullptr, false);
  if (body.is_object())
    for (const char* key : {"message", "error"})
      if (body.contains(key) && body[key].is_string()) {
        // A refused key may be quoted: masked, then cut.
        reason += ": " + core::secrets::quote(body[key].get<std::string>(), 300);
        break;
      }
  return reason;
}

}  // namespace

std::vector<std::string> BackupSettings::missing() const {
  std::vector<std::string> out;
  if (base_url.empty()) out.emplace_back("BACKUP_BASE_URL");
  if (public_key.empty()) out.emplace_back("BACKUP_PUBLIC_KEY");
  if (secret_key.empty()) out.emplace_back("BACKUP_SECRET_KEY");
  return out;
}

BackupSettings read_backup_settings(core::config::Reader& env) {
  BackupSettings s;
  s.base_url = env.url("BACKUP_BASE_URL", "", "the backup service's API (Datto BCDR: https://api.datto.com/v1/bcdr)");
  s.public_key = env.secret("BACKUP_PUBLIC_KEY", "the backup API's public key (the HTTP Basic user)");
  s.secret_key = env.secret("BACKUP_SECRET_KEY", "the backup API's secret key (the HTTP Basic password)");
  s.per_page = static_cast<int>(
      env.integer("BACKUP_PAGE_SIZE", 100, "records per page of a backup list (Datto's _perPage)", {1, 1000}));
  s.interval = std::chrono::minutes(env.integer(
      "BACKUP_SYNC_MINUTES", 60, "minutes between scheduled backup syncs (0: only on demand)", {0, 7 * 24 * 60}));
  const auto missing = s.missing();
  if (!missing.empty() && missing.size() < 3)
    env.fail(missing.front(),
             "BACKUP_BASE_URL, BACKUP_PUBLIC_KEY and BACKUP_SECRET_KEY are set together or not at all");
  return s;
}

DattoClient::DattoClient(boost::asio::any_io_executor executor, BackupSettings settings, integrations::Health health)
    : settings_(std::move(settings)),
      authorization_("Basic " + core::base64(settings_.public_key + ":" + settings_.secret_key)),
      http_(std::move(executor), {.total_timeout = settings_.timeout,
                                  .max_retries = 4,
                                  .max_retry_after = std::chrono::seconds(60),
                                  .user_agent = "msp-ops-console/0.1",
                                  .integration = "backup"}),
      health_(std::move(health)) {
  core::secrets::remember_basic(settings_.public_key, settings_.secret_key);
}

awaitable<DattoPage> DattoClient::get(std::string path, int page) {
  const std::string target =
      settings_.base_url + path + "?_page=" + std::to_string(page) + "&_perPage=" + std::to_string(settings_.per_page);
  co_return co_await health_.observe<DattoPage>("backup", [&]() -> awaitable<DattoPage> {
    core::http::OutboundResponse res;
    try {
      res = co_await http_.send({.method = "GET",
                                 .url = target,
                                 .headers = {{"Authorization", authorization_}, {"Accept", "application/json"}},
                                 .retry_status = [](int status) { return status == 429 || status >= 500; }});
    } catch (const core::http::TransportError& e) {
      throw BackupError("the backup service could not be reached (" + path + "): " + e.what());
    }
    if (!res.ok()) throw BackupError("the backup service refused " + path + ": " + datto_reason_of(res));
    auto body = parse_datto_page(res.body);
    if (!body) throw BackupError("the backup service answered " + path + " without items");
    co_return std::move(*body);
  });
}

awaitable<void> DattoClient::each_page(std::string path, Page page) {
  for (int number = 1;; ++number) {
    DattoPage body = co_await get(path, number);
    const bool empty = body.items.empty();
    co_await page(std::move(body.items));
    if (empty || number >= body.total_pages) co_return;
  }
}

}  // namespace ops_console::backup
