#pragma once
// A believable SentinelOne account of an MSP for the SentinelOne fake, from a seeded generator: the same
// options, seed and `now` give the same sites and agents (ids included).
//
// One account ("Northwind IT Services"); its sites are the MSP's customers, named after the PSA fake's
// companies (autotask::company_name) so that the console's site-to-company mapping meets every case:
//
//   default  site 0, "Default site" (isDefault true, the MSP's own lab machines, a handful of agents)
//   exact    ~1/2 of the rest: the PSA name as it is
//   variant  ~1/4: the PSA name with a suffix or another case ("Cobalt Logistics - Servers",
//            "COBALT LOGISTICS"), for a review
//   none     the rest: no PSA counterpart ("Quillon Robotics")
//
// Each site has agents_min..agents_max agents (desktops, laptops and a few servers; Windows mostly, some
// macOS and Linux; ~90% isActive, lastActiveDate within the last 30 days, older for the inactive ones).
// A site's activeLicenses is its number of agents; totalLicenses is a little above it (one site is
// over-deployed: activeLicenses > totalLicenses; one has unlimitedLicenses with totalLicenses 0). Ids are
// SentinelOne's: decimal strings of 18-19 digits (≥ 100000000000000000), increasing in creation order.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace sandbox {

struct SentinelOneFakeSeedOptions {
  std::uint32_t seed = 1;
  int sites = 12;        // 0..2,000 (site 0 is the default site)
  int agents_min = 150;  // agents per site (the default site has 2..6)
  int agents_max = 450;
  int psa_companies = 40;  // how many companies the PSA fake has; sites are named after 1..psa_companies-1
};

namespace sentinelone {

struct Site {
  std::uint64_t id = 0;
  std::string name;
  std::string match;     // default, exact, variant, none (what the seed meant; not SentinelOne's)
  std::string psa_name;  // the PSA company it was named after; empty for default and none
  int agents = 0;
  std::string json;  // the site as GET /sites renders it
  int total_licenses = 0;
};

struct Agent {
  std::uint64_t id = 0;
  std::size_t site = 0;  // position in sites
  bool active = false;
  std::string os_type;  // windows, macos, linux
  std::string json;     // the agent as GET /agents renders it
};

struct Data {
  std::string account_id;
  std::string account_name;
  std::vector<Site> sites;    // by id
  std::vector<Agent> agents;  // by id
};

Data seed_data(const SentinelOneFakeSeedOptions& options, std::chrono::sys_seconds now);

}  // namespace sentinelone
}  // namespace sandbox
