// The SentinelOne fake's sites and agents (sentinelone_seed.hpp).
#include "sandbox/sentinelone_seed.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "sandbox/autotask_seed.hpp"
#include "sandbox/seed_random.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

namespace sandbox::sentinelone {

using nlohmann::json;

namespace {

constexpr std::array<const char*, 8> kNoneNames = {"Quillon Robotics",  "Zephyr Textiles", "Obsidian Analytics",
                                                   "Tavistock Studios", "Corvid Ceramics", "Halcyon Foods",
                                                   "Lumen Labs",        "Ostler Freight"};
constexpr std::array<const char*, 3> kSkus = {"Core", "Control", "Complete"};
constexpr std::array<const char*, 6> kUsers = {"asmith", "bjones", "ctaylor", "dpatel", "ewilson", "fgreen"};

struct Os {
  const char* type;
  const char* name;
  const char* revision;
  const char* machine;
};
constexpr std::array<Os, 7> kOs = {{{"windows", "Windows 11 Pro", "22631", "laptop"},
                                    {"windows", "Windows 11 Pro", "26100", "desktop"},
                                    {"windows", "Windows 10 Pro", "19045", "desktop"},
                                    {"windows", "Windows 11 Enterprise", "22631", "laptop"},
                                    {"windows", "Windows Server 2022 Standard", "20348", "server"},
                                    {"macos", "macOS Sonoma", "14.6.1", "laptop"},
                                    {"linux", "Ubuntu 22.04.4 LTS", "5.15.0-119-generic", "server"}}};
constexpr std::array<const char*, 4> kModels = {"Dell Latitude 5440", "HP EliteDesk 800 G6", "Lenovo ThinkPad T14",
                                                "Dell PowerEdge R650"};
constexpr std::array<const char*, 3> kVersions = {"24.1.4.257", "23.4.6.347", "24.2.2.20"};

std::string time_text(std::chrono::sys_seconds t, SeedRandom& rnd) {
  return core::format_rfc3339(core::Timestamp(t) + std::chrono::microseconds(rnd.between(0, 999'999)));
}

// "COBALTL" from "Cobalt Logistics": the prefix of the site's computer names.
std::string host_prefix(const std::string& name) {
  std::string out;
  for (const char c : name)
    if (std::isalpha(static_cast<unsigned char>(c)) && out.size() < 7)
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out.empty() ? "HOST" : out;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Data seed_data(const SentinelOneFakeSeedOptions& options, std::chrono::sys_seconds now) {
  SeedRandom rnd(options.seed);
  Data d;
  d.account_id = "1286405255240245908";
  d.account_name = autotask::company_name(0);
  const int n = std::max(options.sites, 0);
  const int psa = std::max(options.psa_companies, 2);
  const int lo = std::max(options.agents_min, 0), hi = std::max(options.agents_max, lo);

  // The kinds of sites 1..n-1 in the shares of sentinelone_seed.hpp, shuffled.
  std::vector<std::string> kinds;
  const int rest = std::max(n - 1, 0);
  const int exact = (rest + 1) / 2, variant = rest / 4;
  for (int i = 0; i < rest; ++i) kinds.push_back(i < exact ? "exact" : i < exact + variant ? "variant" : "none");
  rnd.shuffle(kinds);
  std::vector<int> companies;
  for (int i = 1; i < psa; ++i) companies.push_back(i);
  rnd.shuffle(companies);

  std::uint64_t site_id = 1286405255257023125ull;
  std::uint64_t agent_id = 1468573405712345678ull;
  std::size_t matched = 0, unmatched = 0;
  for (int i = 0; i < n; ++i) {
    Site s;
    site_id += static_cast<std::uint64_t>(rnd.between(1'000'000, 90'000'000)) * 1000;
    s.id = site_id;
    if (i == 0) {
      s.match = "default";
      s.name = "Default site";
    } else {
      s.match = kinds[static_cast<std::size_t>(i - 1)];
      if (s.match == "none") {
        const auto k = unmatched++;
        s.name = std::string(kNoneNames[k % kNoneNames.size()]) +
                 (k < kNoneNames.size() ? "" : " " + std::to_string(k / kNoneNames.size() + 1));
      } else {
        s.psa_name = autotask::company_name(companies[matched++ % companies.size()]);
        if (s.match == "exact") {
          s.name = s.psa_name;
        } else {
          switch (rnd.between(0, 3)) {
            case 0:
              s.name = s.psa_name + " - Servers";
              break;
            case 1:
              s.name = upper(s.psa_name);
              break;
            case 2:
              s.name = s.psa_name + " (HQ)";
              break;
            default:
              s.name = s.psa_name + " Ltd";
          }
        }
      }
    }
    s.agents = i == 0 ? rnd.between(2, 6) : rnd.between(lo, hi);
    const bool unlimited = n > 3 && i == n - 1;
    const bool over = n > 3 && i == n - 2;  // over-deployed: more agents than licences
    s.total_licenses = unlimited ? 0
                       : over    ? std::max(s.agents - rnd.between(1, 10), 0)
                                 : s.agents + rnd.between(0, std::max(s.agents / 10, 2));
    const char* sku = i == 0 ? "Complete" : kSkus[rnd.next() % kSkus.size()];
    const auto created = now - std::chrono::days(rnd.between(200, 1500)) - std::chrono::seconds(rnd.between(0, 86'399));
    const bool trial = i != 0 && rnd.chance(0.1);
    std::string key;
    for (int k = 0; k < 16; ++k) key += "0123456789abcdef"[rnd.next() % 16];
    const std::string token_json = R"({"url": "https://usea1-partners.sentinelone.net", "site_key": ")" + key + "\"}";
    json site = {
        {"accountId", d.account_id},
        {"accountName", d.account_name},
        {"activeLicenses", s.agents},
        {"createdAt", time_text(created, rnd)},
        {"creator", "Northwind Admin"},
        {"creatorId", "1286405906565325677"},
        {"description", nullptr},
        {"expiration", trial ? json(time_text(now + std::chrono::days(rnd.between(5, 25)), rnd)) : json(nullptr)},
        {"externalId", nullptr},
        {"healthStatus", true},
        {"id", std::to_string(s.id)},
        {"isDefault", i == 0},
        {"licenses",
         {{"bundles",
           {{{"displayName", sku},
             {"majorVersion", 1},
             {"minorVersion", 4},
             {"name", core::to_lower(sku)},
             {"surfaces", {{{"count", s.total_licenses}, {"name", "Total Agents"}}}},
             {"totalSurfaces", s.total_licenses}}}},
          {"modules", json::array()},
          {"settings", json::array()}}},
        {"name", s.name},
        {"registrationToken", core::base64(token_json)},
        {"siteType", trial ? "Trial" : "Paid"},
        {"sku", sku},
        {"state", "active"},
        {"suite", sku},
        {"totalLicenses", s.total_licenses},
        {"unlimitedExpiration", !trial},
        {"unlimitedLicenses", unlimited},
        {"updatedAt", time_text(now - std::chrono::days(rnd.between(0, 30)), rnd)}};
    s.json = site.dump();
    d.sites.push_back(std::move(s));
  }

  // Agents, created over time across the sites: ids increase in creation order, as SentinelOne's do.
  struct Pending {
    std::size_t site;
    int index;
  };
  std::vector<Pending> pending;
  for (std::size_t s = 0; s < d.sites.size(); ++s)
    for (int k = 0; k < d.sites[s].agents; ++k) pending.push_back({s, k});
  rnd.shuffle(pending);
  std::vector<int> numbers(d.sites.size(), 0);
  for (const auto& p : pending) {
    const auto& site = d.sites[p.site];
    Agent a;
    agent_id += static_cast<std::uint64_t>(rnd.between(1'000, 900'000));
    a.id = agent_id;
    a.site = p.site;
    const auto& os = kOs[rnd.next() % kOs.size()];
    a.os_type = os.type;
    a.active = rnd.chance(0.9);
    const bool server = std::string(os.machine) == "server";
    char name[64];
    std::snprintf(name, sizeof name, "%s-%s-%03d", host_prefix(site.name).c_str(), server ? "SRV" : "WS",
                  ++numbers[p.site]);
    const auto registered =
        now - std::chrono::days(rnd.between(40, 900)) - std::chrono::seconds(rnd.between(0, 86'399));
    const auto last_active = a.active ? now - std::chrono::seconds(rnd.between(30, 30 * 86'400))
                                      : now - std::chrono::days(rnd.between(31, 200));
    const int threats = rnd.chance(0.03) ? rnd.between(1, 3) : 0;
    std::string uuid;
    for (int k = 0; k < 32; ++k) uuid += "0123456789abcdef"[rnd.next() % 16];
    char ip[32], mgmt[32];
    std::snprintf(ip, sizeof ip, "203.0.113.%d", rnd.between(1, 254));
    std::snprintf(mgmt, sizeof mgmt, "10.%d.%d.%d", static_cast<int>(p.site % 250), rnd.between(0, 255),
                  rnd.between(1, 254));
    json agent = {{"accountId", d.account_id},
                  {"accountName", d.account_name},
                  {"activeThreats", threats},
                  {"agentVersion", kVersions[rnd.next() % kVersions.size()]},
                  {"computerName", name},
                  {"coreCount", server ? 16 : 4},
                  {"cpuCount", server ? 2 : 1},
                  {"createdAt", time_text(registered, rnd)},
                  {"domain", "WORKGROUP"},
                  {"externalIp", ip},
                  {"groupId", std::to_string(site.id + 1)},
                  {"groupName", "Default Group"},
                  {"id", std::to_string(a.id)},
                  {"infected", threats > 0},
                  {"isActive", a.active},
                  {"isDecommissioned", false},
                  {"isUninstalled", false},
                  {"isUpToDate", rnd.chance(0.8)},
                  {"lastActiveDate", time_text(last_active, rnd)},
                  {"lastIpToMgmt", mgmt},
                  {"lastLoggedInUserName", server ? "Administrator" : kUsers[rnd.next() % kUsers.size()]},
                  {"machineType", os.machine},
                  {"mitigationMode", "protect"},
                  {"modelName", kModels[server ? 3 : rnd.next() % 3]},
                  {"networkStatus", a.active ? "connected" : "disconnected"},
                  {"osName", os.name},
                  {"osRevision", os.revision},
                  {"osType", os.type},
                  {"registeredAt", time_text(registered, rnd)},
                  {"scanStatus", "finished"},
                  {"serialNumber", upper(uuid.substr(0, 10))},
                  {"siteId", std::to_string(site.id)},
                  {"siteName", site.name},
                  {"totalMemory", server ? 65'536 : 16'384},
                  {"updatedAt", time_text(std::max(registered, last_active), rnd)},
                  {"uuid", uuid}};
    a.json = agent.dump();
    d.agents.push_back(std::move(a));
  }
  return d;
}

}  // namespace sandbox::sentinelone
