// The Datto BCDR fake: its seed, the gate every API call passes (HTTP Basic, the rate limit, latency and
// faults), the device and asset routes and the control routes (datto_fake.hpp lists them).
#include "sandbox/datto_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "sandbox/autotask_seed.hpp"
#include "sandbox/control_body.hpp"
#include "sandbox/duo_signing.hpp"
#include "sandbox/seed_random.hpp"

#include <algorithm>
#include <ctime>
#include <optional>
#include <tuple>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

constexpr std::string_view kDattoBase = "/datto/v1/bcdr";

Response datto_error(int status, std::string message) {
  return Response::json({{"code", status}, {"message", std::move(message)}}, static_cast<Status>(status));
}

// "2020-04-29T14:01:03+00:00", as Datto writes a backup's timestamp.
std::string datto_time(std::int64_t epoch) {
  const std::time_t t = static_cast<std::time_t>(epoch);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
  return out;
}

// _page and _perPage of a list call; a message for the 400 otherwise.
struct DattoPage {
  std::int64_t page = 1, per_page = 100;
  std::optional<std::string> bad;
};

DattoPage datto_page_of(const Request& req) {
  DattoPage p;
  for (const auto& [name, target] : {std::pair{"_page", &p.page}, std::pair{"_perPage", &p.per_page}})
    if (const auto v = req.query.get(name)) {
      const auto n = core::parse_int64(*v);
      if (!n || *n < 1)
        p.bad = std::string(name) + " must be a positive integer";
      else
        *target = std::min<std::int64_t>(*n, 1'000'000);
    }
  return p;
}

Response datto_list(const std::vector<const json*>& rows, const DattoPage& p) {
  const auto count = static_cast<std::int64_t>(rows.size());
  const std::int64_t pages = (count + p.per_page - 1) / p.per_page;
  json items = json::array();
  for (std::int64_t i = (p.page - 1) * p.per_page; i < count && i < p.page * p.per_page; ++i) items.push_back(*rows[i]);
  return Response::json(
      {{"pagination", {{"page", p.page}, {"perPage", p.per_page}, {"totalPages", pages}, {"count", count}}},
       {"items", std::move(items)}});
}

}  // namespace

DattoFake::DattoFake(DattoFakeOptions options) : options_(std::move(options)) {}

void DattoFake::reset() {
  std::lock_guard lock(mutex_);
  devices_.clear();
  faults_ = {};
  window_calls_ = 0;
  requests_ = unauthorised_ = bad_requests_ = throttled_ = rate_limited_ = server_errors_ = device_calls_ =
      asset_calls_ = 0;
  serving_ = {};
  echoes_.clear();
}

void DattoFake::set_faults(DattoFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = std::move(faults);
  window_calls_ = 0;
}

void DattoFake::seed(const DattoFakeSeedOptions& o) {
  SeedRandom rnd(o.seed);
  const std::int64_t now = std::time(nullptr);
  const std::int64_t hour = now - now % 3600;
  const int psa = std::max(o.psa_companies, 2);
  static const std::vector<std::string> kOs = {"Windows Server 2019", "Windows Server 2022", "Windows 10", "Windows 11",
                                               "Ubuntu 22.04"};
  static const std::vector<std::string> kErrors = {"Unable to create VSS snapshot", "The agent could not be contacted",
                                                   "Backup timed out after 4 hours",
                                                   "Insufficient space on the local storage pool"};
  std::vector<Device> out;
  for (int d = 0; d < o.devices; ++d) {
    Device dev;
    dev.serial = "A" + std::to_string(100000000 + rnd.between(0, 89999999)) + std::to_string(d);
    if (d == o.devices - 1 && o.devices > 2) {
      dev.match = "none";
      dev.body["clientCompanyName"] = "Quillon Robotics";
    } else {
      dev.psa_name = autotask::company_name(1 + d % (psa - 1));
      dev.match = d % 3 == 1 ? "suffix" : "exact";
      dev.body["clientCompanyName"] = d % 3 == 1 ? dev.psa_name + " Ltd" : dev.psa_name;
    }
    dev.hidden = d == 0 && o.devices > 3;
    const std::string client = dev.body["clientCompanyName"];
    dev.body.update(
        {{"serialNumber", dev.serial},
         {"name", (d % 2 ? "SIRIS-" : "ALTO-") + core::to_lower(client.substr(0, 6)) + "-" + std::to_string(d + 1)},
         {"model", d % 2 ? "S5-2000" : "A4-1000"},
         {"lastSeenDate", datto_time(now - rnd.between(30, 900))},
         {"hidden", dev.hidden},
         {"servicePlan", "Infinite Cloud Retention"},
         {"registrationDate", datto_time(now - 86400L * rnd.between(100, 1500))},
         {"servicePeriod", datto_time(now + 86400L * rnd.between(30, 700))},
         {"warrantyExpire", datto_time(now + 86400L * rnd.between(30, 900))},
         {"localStorageUsed", {{"size", rnd.between(200, 3000)}, {"units", "GB"}}},
         {"localStorageAvailable", {{"size", rnd.between(500, 6000)}, {"units", "GB"}}},
         {"offsiteStorageUsed", {{"size", rnd.between(200, 3000)}, {"units", "GB"}}},
         {"internalIP", "10.0." + std::to_string(d) + ".5"},
         {"activeTickets", 0},
         {"resellerCompanyName", "Northwind IT Services"},
         {"uptime", rnd.between(3600, 3'000'000)},
         {"remoteWebUrl", "https://device.dattobackup.com/remote/" + dev.serial}});
    const int agents = rnd.between(o.agents_min, std::max(o.agents_min, o.agents_max));
    int alerts = 0;
    for (int a = 0; a <= agents; ++a) {
      const bool share = a == agents;
      const std::string name = share ? "FileShare" + std::to_string(d + 1)
                                     : (a == 0   ? "DC"
                                        : a == 1 ? "SQL"
                                                 : "WS") +
                                           std::to_string(d + 1) + "-" + std::to_string(a + 1);
      json backups = json::array();
      std::int64_t last_good = 0;
      // A machine that fails keeps failing for a while: some assets are broken, most are healthy.
      const double failing = rnd.chance(0.2) ? 0.5 : 0.04;
      for (int b = o.backups - 1; b >= 0; --b) {
        const std::int64_t at = hour - 3600L * b - rnd.between(0, 600);
        const bool ok = !rnd.chance(failing);
        if (ok) last_good = at;
        json backup = {{"status", ok ? "success" : "failed"},
                       {"errorMessage", ok ? json(nullptr) : json(rnd.pick(kErrors))}};
        backups.push_back({{"timestamp", datto_time(at)},
                           {"backup", std::move(backup)},
                           {"localVerification", {{"status", ok ? "success" : "failed"}, {"errors", json::array()}}},
                           {"advancedVerification",
                            {{"screenshotVerification",
                              {{"status", ok ? "success" : "failed"},
                               {"image", "https://device.dattobackup.com/sirisReporting/image/" + dev.serial}}}}}});
        if (!ok && b == 0) ++alerts;
      }
      json asset = {{"name", name},
                    {"localIp", "10.0." + std::to_string(d) + "." + std::to_string(20 + a)},
                    {"os", share ? "" : rnd.pick(kOs)},
                    {"protectedVolumesCount", share ? 1 : 2},
                    {"unprotectedVolumesCount", 0},
                    {"protectedVolumeNames", share ? json::array({"/"}) : json::array({"C:", "D:"})},
                    {"unprotectedVolumeNames", json::array()},
                    {"agentVersion", share ? "" : "3.1.4.0"},
                    {"isPaused", false},
                    {"isArchived", false},
                    {"latestOffsite", last_good ? last_good - 3600 : 0},
                    {"localSnapshots", o.backups * 20},
                    {"lastSnapshot", last_good},
                    {"lastScreenshotAttempt", share ? 0 : last_good},
                    {"lastScreenshotAttemptStatus", !share && last_good > 0},
                    {"lastScreenshotUrl",
                     share ? "" : "https://device.dattobackup.com/sirisReporting/image/latest/" + dev.serial + ".png"},
                    {"fqdn", core::to_lower(name) + ".corp.example"},
                    {"backups", std::move(backups)},
                    {"type", share ? "share" : "agent"}};
      if (!share) asset["volume"] = rnd.uuid();
      dev.assets.push_back(std::move(asset));
    }
    dev.body["agentCount"] = agents;
    dev.body["shareCount"] = 1;
    dev.body["alertCount"] = alerts;
    out.push_back(std::move(dev));
  }
  std::lock_guard lock(mutex_);
  devices_ = std::move(out);
}

bool DattoFake::set_backup_status(const std::string& serial, const std::string& asset, const std::string& timestamp,
                                  const std::string& status) {
  std::lock_guard lock(mutex_);
  for (auto& d : devices_) {
    if (d.serial != serial) continue;
    for (auto& a : d.assets) {
      if (a.value("name", "") != asset) continue;
      for (auto& b : a["backups"])
        if (b["timestamp"] == timestamp) {
          b["backup"]["status"] = status;
          return true;
        }
    }
  }
  return false;
}

json DattoFake::devices() const {
  std::lock_guard lock(mutex_);
  const std::string since = datto_time(std::time(nullptr) - 86400);
  json out = json::array();
  for (const auto& d : devices_) {
    int failed = 0;
    for (const auto& a : d.assets)
      for (const auto& b : a["backups"])
        if (b["backup"]["status"] == "failed" && b["timestamp"].get<std::string>() > since) ++failed;
    out.push_back({{"serialNumber", d.serial},
                   {"name", d.body["name"]},
                   {"clientCompanyName", d.body["clientCompanyName"]},
                   {"hidden", d.hidden},
                   {"assets", d.assets.size()},
                   {"failed", failed},
                   {"_sandbox", {{"match", d.match}, {"psaName", d.psa_name}}}});
  }
  return out;
}

json DattoFake::stats() const {
  std::lock_guard lock(mutex_);
  std::int64_t assets = 0, backups = 0, failed = 0;
  for (const auto& d : devices_)
    for (const auto& a : d.assets) {
      ++assets;
      for (const auto& b : a["backups"]) {
        ++backups;
        if (b["backup"]["status"] == "failed") ++failed;
      }
    }
  return {{"requests", requests_},
          {"unauthorized", unauthorised_},
          {"bad_requests", bad_requests_},
          {"throttled", throttled_},
          {"rate_limited", rate_limited_},
          {"server_errors", server_errors_},
          {"echoed", echoes_.count()},
          {"calls", {{"devices", device_calls_}, {"assets", asset_calls_}}},
          {"serving_ms", std::chrono::duration<double, std::milli>(serving_).count()},
          {"rows", {{"devices", devices_.size()}, {"assets", assets}, {"backups", backups}, {"failed", failed}}}};
}

awaitable<Response> DattoFake::serve(Request& req, std::int64_t& calls, Work work) {
  const auto header = core::trim(req.header("Authorization"));
  std::string user, password;
  if (header.size() > 6 && core::starts_with_icase(header, "basic "))
    if (const auto decoded = duo::base64_decode(core::trim(header.substr(6)))) {
      const auto colon = decoded->find(':');
      if (colon != std::string::npos) {
        user = decoded->substr(0, colon);
        password = decoded->substr(colon + 1);
      }
    }
  DattoFaults faults;
  bool allowed = false;
  int retry_after = 0;  // the rate limit's
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    faults.echo = faults_.echo;
    allowed = !user.empty() && core::constant_time_equals(user, options_.public_key) &&
              core::constant_time_equals(password, options_.secret_key);
    if (!allowed) {
      ++unauthorised_;
    } else {
      ++calls;
      faults = faults_;
      if (faults_.throttle > 0) {
        --faults_.throttle;
        ++throttled_;
      } else if (faults_.server_errors > 0) {
        --faults_.server_errors;
        ++server_errors_;
      } else if (faults_.rate_per_minute > 0) {
        const auto now = std::chrono::steady_clock::now();
        if (now - window_start_ >= std::chrono::minutes(1)) {
          window_start_ = now;
          window_calls_ = 0;
        }
        if (++window_calls_ > faults_.rate_per_minute) {
          ++rate_limited_;
          retry_after = 1 + static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(
                                                 window_start_ + std::chrono::minutes(1) - now)
                                                 .count());
        }
      }
    }
  }
  const auto said = [&](std::string message) {
    return echoes_.message(faults.echo, std::move(message), {{"public_key", user}, {"secret_key", password}});
  };
  if (!allowed) co_return datto_error(401, said("Unauthorized"));
  co_await core::async::sleep_for(faults.latency);
  if (faults.throttle > 0 || retry_after > 0) {
    auto res = datto_error(429, "Too Many Requests");
    res.headers.set("Retry-After", std::to_string(retry_after > 0 ? retry_after : faults.retry_after));
    co_return res;
  }
  if (faults.server_errors > 0)
    co_return datto_error(faults.status, said(faults.status == 504 ? "Gateway Timeout" : "Server Error"));
  const auto started = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  Response res = work(req);
  if (res.status == Status::bad_request) ++bad_requests_;
  serving_ += std::chrono::steady_clock::now() - started;
  co_return res;
}

void DattoFake::install(core::http::Router& router) {
  const std::string at(kDattoBase);
  router.get(at + "/device", [this](Request& req) -> awaitable<Response> {
    co_return co_await serve(req, device_calls_, [this](const Request& r) {
      const auto p = datto_page_of(r);
      if (p.bad) return datto_error(400, *p.bad);
      const auto hidden = r.query.get("showHiddenDevices");
      const bool show_hidden = !hidden || *hidden != "0";
      std::vector<const json*> rows;
      for (const auto& d : devices_)
        if (show_hidden || !d.hidden) rows.push_back(&d.body);
      return datto_list(rows, p);
    });
  });
  router.get(at + "/device/{serialNumber}/asset", [this](Request& req) -> awaitable<Response> {
    co_return co_await serve(req, asset_calls_, [this](const Request& r) {
      const auto p = datto_page_of(r);
      if (p.bad) return datto_error(400, *p.bad);
      const std::string serial(r.param("serialNumber"));
      const auto d =
          std::find_if(devices_.begin(), devices_.end(), [&](const Device& x) { return x.serial == serial; });
      if (d == devices_.end()) return datto_error(404, "Device " + serial + " not found");
      std::vector<const json*> rows;
      for (const auto& a : d->assets) rows.push_back(&a);
      return datto_list(rows, p);
    });
  });
  install_control(router);
}

void DattoFake::install_control(core::http::Router& router) {
  router.post("/_sandbox/datto/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });
  router.post("/_sandbox/datto/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return datto_error(400, "body must be a JSON object");
    DattoFakeSeedOptions o;
    const std::tuple<const char*, int, int, int*> numbers[] = {{"devices", 0, 1'000, &o.devices},
                                                               {"agents_min", 0, 500, &o.agents_min},
                                                               {"agents_max", 0, 500, &o.agents_max},
                                                               {"backups", 0, 500, &o.backups},
                                                               {"psa_companies", 2, 100'000, &o.psa_companies}};
    for (const auto& [name, lo, hi, target] : numbers)
      if (const auto bad = read_int(body, name, lo, hi, *target)) co_return datto_error(400, *bad);
    if (o.agents_max < o.agents_min) co_return datto_error(400, "agents_max must be at least agents_min");
    if (const auto bad = read_seed(body, o.seed)) co_return datto_error(400, *bad);
    seed(o);
    co_return Response::json(stats()["rows"], Status::created);
  });
  router.put("/_sandbox/datto/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return datto_error(400, "body must be a JSON object");
    DattoFaults f;
    if (const auto bad = read_fault_switches(body, f)) co_return datto_error(400, *bad);
    if (const auto bad = read_int(body, "rate_per_minute", 0, 1'000'000, f.rate_per_minute))
      co_return datto_error(400, *bad);
    set_faults(f);
    co_return Response::empty();
  });
  router.get("/_sandbox/datto/devices", [this](Request&) -> awaitable<Response> {
    co_return Response::json({{"devices", devices()}});
  });
  router.get("/_sandbox/datto/stats", [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });
}

}  // namespace sandbox
