#pragma once
// A fake of Datto's BCDR partner REST API v1 (backup; SIRIS and ALTO appliances), under /datto so that
// BACKUP_BASE_URL = <sandbox>/datto/v1/bcdr:
//
//   GET /datto/v1/bcdr/device                        ?_page, _perPage, showHiddenDevices
//       → {pagination: {page, perPage, totalPages, count}, items: [device...]}
//   GET /datto/v1/bcdr/device/{serialNumber}/asset   ?_page, _perPage → the same envelope, items: [asset...]
//
// What a client meets, as on Datto (sources: Datto's API description as the DattoAPI PowerShell module
// quotes it, Celerium/Datto-PowerShellWrapper DattoAPI/Resources/Device.ps1, Asset.ps1 and
// Private/apiCalls/Invoke-DattoRequest.ps1; the DattoBackupApi module's spec/EndpointMap.json
// (powershellgallery.com) for the operations; vendors.md "Backup: Datto BCDR"):
//   - every call is HTTP Basic with the partner's REST API public key as user and secret key as password
//     (Invoke-DattoRequest: `Authorization: Basic base64("{PublicKey}:{SecretKey}")`); a missing or wrong
//     pair is 401;
//   - lists page by `_page` (from 1, default 1) and `_perPage` (default 100): Device.ps1 and Asset.ps1 send
//     both, and Invoke-DattoRequest's allPages loop raises `_page` until it passes pagination.totalPages;
//     a page past the last answers no items; a `_page` or `_perPage` below 1 or not an integer is 400
//     (the bound is the module's ValidateRange(1, ...); the 400 is this fake's);
//   - shapes (Device.ps1's and Asset.ps1's example bodies): device {serialNumber, name, model,
//     lastSeenDate, clientCompanyName, hidden, servicePlan, registrationDate, servicePeriod, warrantyExpire,
//     localStorageUsed {size, units}, localStorageAvailable, offsiteStorageUsed, internalIP, activeTickets,
//     resellerCompanyName, agentCount, shareCount, alertCount, uptime, remoteWebUrl}; asset {name, volume,
//     localIp, os, protectedVolumesCount, unprotectedVolumesCount, protectedVolumeNames,
//     unprotectedVolumeNames, agentVersion, isPaused, isArchived, latestOffsite, localSnapshots,
//     lastSnapshot, lastScreenshotAttempt, lastScreenshotAttemptStatus, lastScreenshotUrl, fqdn, backups:
//     [{timestamp ("2020-04-29T14:01:03+00:00"), backup {status, errorMessage}, localVerification {status,
//     errors: [{errorType, errorMessage}]}, advancedVerification {screenshotVerification {status,
//     image}}}], type}; the epoch fields are Unix seconds; showHiddenDevices 0 leaves hidden devices out
//     (Device.ps1: "By default '1' ... shows hidden devices");
//   - an unknown serial number is 404 (Invoke-DattoRequest maps a 404 to "[ resource ] not found!");
//   - a client over the rate limit gets 429 (Invoke-DattoRequest: "API rate limited"); the limit is not in
//     the published description: a Datto BCDR MCP server documents "Datto allows roughly 120/min per key"
//     (glama.ai, DATTO_BCDR_RATE_LIMIT_PER_MINUTE), so this fake counts calls per key in a minute's window
//     when `rate_per_minute` is set and answers 429 with Retry-After (the seconds to the window's end);
//   - the status words of backup.status and the error bodies are not published (the examples say
//     "string"): this fake writes "success" and "failed", and errors as {"code", "message"} (unverified;
//     the client reads `message` or `error`, else the status alone);
//   - 5xx when a fault says (504 is the one the module names: "Gateway Timeout").
//
// Keys (DattoFakeOptions): "sandbox-backup-public" / "sandbox-backup-secret". Seed (DattoFakeSeedOptions):
// devices whose clientCompanyName is a PSA fake company's name (exactly, or with a legal suffix), one
// whose client has no PSA counterpart, and one hidden; each protects agents_min..agents_max agents and a
// share, with hourly backups of the last `backups` hours, about one in ten failed.
//
// Control routes (tests in other processes, the demo), under /_sandbox/datto:
//   POST /_sandbox/datto/reset    forget devices, switches and counters (the keys back to their defaults)
//   POST /_sandbox/datto/seed     {seed, devices, agents_min, agents_max, backups, psa_companies} → 201 {devices,
//                                 assets, backups, failed}
//   PUT  /_sandbox/datto/faults   {throttle, retry_after, server_errors, status, latency_ms, rate_per_minute,
//                                 echo_credentials, error_padding}: with echo_credentials, a 401 and a fault's
//                                 message quote the keys received (echo.hpp)
//   GET  /_sandbox/datto/devices  {devices: [{serialNumber, name, clientCompanyName, assets, failed (in the
//                                 last 24 hours), "_sandbox": {match, psaName}}]}
//   GET  /_sandbox/datto/stats    {requests, unauthorized, bad_requests, throttled, rate_limited, server_errors,
//                                 calls: {devices, assets}, serving_ms, rows}
#include "core/http/router.hpp"
#include "sandbox/echo.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace sandbox {

struct DattoFakeOptions {
  std::string public_key = "sandbox-backup-public";
  std::string secret_key = "sandbox-backup-secret";
};

struct DattoFakeSeedOptions {
  std::uint32_t seed = 1;
  int devices = 6;
  int agents_min = 3;  // agents per device (each device also protects one share)
  int agents_max = 8;
  int backups = 12;        // hourly backups per asset, the latest within the last hour
  int psa_companies = 40;  // the PSA fake's companies that clients are named after (1..psa_companies-1)
};

struct DattoFaults {
  int throttle = 0;       // the next N authorised API calls answer 429 with Retry-After
  int retry_after = 1;    // seconds
  int server_errors = 0;  // the next N authorised API calls answer `status`
  int status = 503;
  int rate_per_minute = 0;  // calls a minute per key before 429 (0: no limit)
  std::chrono::milliseconds latency{0};
  EchoSwitch echo;
};

class DattoFake {
 public:
  explicit DattoFake(DattoFakeOptions options = {});

  void install(core::http::Router& router);

  // The state behind the control routes, for tests in this process; thread-safe.
  void reset();
  void seed(const DattoFakeSeedOptions& options);  // replaces every device
  void set_faults(DattoFaults faults);
  nlohmann::json stats() const;
  nlohmann::json devices() const;  // GET /_sandbox/datto/devices
  // Sets backup.status of the backup of `asset` (its name) on device `serial` taken at `timestamp`
  // (as listed), as Datto does when a backup under way ends; false when there is no such backup.
  bool set_backup_status(const std::string& serial, const std::string& asset, const std::string& timestamp,
                         const std::string& status);
  const DattoFakeOptions& options() const { return options_; }
  std::vector<std::string> echoed() const { return echoes_.values(); }

  struct Device {
    std::string serial;
    nlohmann::json body;                 // as GET /device renders it
    std::vector<nlohmann::json> assets;  // as GET /device/{serial}/asset renders them
    std::string match, psa_name;         // what the seed meant (exact, suffix, none)
    bool hidden = false;
  };

 private:
  using Work = std::function<core::http::Response(const core::http::Request&)>;
  boost::asio::awaitable<core::http::Response> serve(core::http::Request& req, std::int64_t& calls, Work work);
  void install_control(core::http::Router& router);

  DattoFakeOptions options_;
  mutable std::mutex mutex_;
  std::vector<Device> devices_;
  DattoFaults faults_;
  std::chrono::steady_clock::time_point window_start_{};
  int window_calls_ = 0;
  std::int64_t requests_ = 0, unauthorised_ = 0, bad_requests_ = 0, throttled_ = 0, rate_limited_ = 0,
               server_errors_ = 0, device_calls_ = 0, asset_calls_ = 0;
  std::chrono::steady_clock::duration serving_{};
  Echoes echoes_;
};

}  // namespace sandbox
