// The Duo fake's accounts and users (duo_seed.hpp).
#include "sandbox/duo_seed.hpp"

#include "sandbox/autotask_seed.hpp"
#include "sandbox/seed_random.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <set>

namespace sandbox::duo {

using nlohmann::json;

namespace {

constexpr std::array<const char*, 48> kFirst = {
    "Olivia", "Liam",     "Amelia", "Noah",    "Isla",  "Oliver", "Ava",  "George", "Mia",    "Arthur",
    "Ivy",    "Leo",      "Grace",  "Harry",   "Freya", "Oscar",  "Lily", "Jack",   "Sophie", "Henry",
    "Ella",   "Jacob",    "Emily",  "Charlie", "Chloe", "Thomas", "Ruby", "Alfie",  "Evie",   "James",
    "Alice",  "Joshua",   "Poppy",  "Samuel",  "Daisy", "Daniel", "Zara", "Adam",   "Hannah", "Ethan",
    "Priya",  "Mohammed", "Aisha",  "Luca",    "Nina",  "Kofi",   "Mei",  "Tomasz"};
constexpr std::array<const char*, 48> kLast = {
    "Smith",    "Jones",    "Taylor",  "Brown",  "Williams", "Wilson",   "Johnson", "Davies", "Patel", "Robinson",
    "Wright",   "Thompson", "Evans",   "Walker", "White",    "Roberts",  "Green",   "Hall",   "Wood",  "Jackson",
    "Clarke",   "Hughes",   "Edwards", "Turner", "Harris",   "Martin",   "Cooper",  "Hill",   "Ward",  "Morris",
    "Moore",    "Clark",    "Lee",     "King",   "Baker",    "Harrison", "Morgan",  "Allen",  "James", "Scott",
    "Phillips", "Watson",   "Davis",   "Parker", "Bennett",  "Khan",     "Nowak",   "Okafor"};
constexpr std::array<const char*, 5> kBypassNotes = {
    "Bypass while phone is replaced (INC-{n})", "Travelling, no signal: bypass agreed by IT manager",
    "Service account for the scanner", "", "Temporary bypass, new starter (INC-{n})"};
constexpr std::array<const char*, 4> kPhones = {"Apple iPhone 15", "Apple iPhone 13", "Samsung Galaxy S23",
                                                "Google Pixel 8"};

// Duo's id form: a two-letter prefix and 18 upper-case letters and digits.
std::string duo_id(SeedRandom& rnd, const char* prefix) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string out(prefix);
  for (int i = 0; i < 18; ++i) out += kChars[rnd.next() % 36];
  return out;
}

// "cobalt-logistics.example" from "Cobalt Logistics".
std::string domain_of(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out + ".example";
}

// "2026-11-20T09:14:03": how Duo writes a phone's last_seen.
std::string iso_local(std::chrono::sys_seconds t) {
  const auto day = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd(day);
  const std::chrono::hh_mm_ss hms(t - day);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

// `count` statuses in the shares of duo_seed.hpp, shuffled.
std::vector<const char*> statuses(SeedRandom& rnd, int count) {
  std::vector<const char*> out;
  out.reserve(static_cast<std::size_t>(count));
  const auto share = [&](double p) { return static_cast<int>(count * p + 0.5); };
  const int bypass = std::max(count >= 10 ? 1 : 0, share(0.06)), disabled = std::max(count >= 10 ? 1 : 0, share(0.05));
  const int locked = share(0.02), pending = share(0.01);
  for (int i = 0; i < bypass; ++i) out.push_back("bypass");
  for (int i = 0; i < disabled; ++i) out.push_back("disabled");
  for (int i = 0; i < locked; ++i) out.push_back("locked out");
  for (int i = 0; i < pending; ++i) out.push_back("pending deletion");
  while (static_cast<int>(out.size()) < count) out.push_back("active");
  out.resize(static_cast<std::size_t>(count));
  rnd.shuffle(out);
  return out;
}

Account make_account(SeedRandom& rnd, std::string name, bool parent, int users, std::chrono::sys_seconds now) {
  Account a;
  a.account_id = duo_id(rnd, "DA");
  a.name = std::move(name);
  a.parent = parent;
  const auto domain = domain_of(a.name);
  const auto status = statuses(rnd, users);
  std::set<std::string> taken;
  for (int i = 0; i < users; ++i) {
    const std::string first = kFirst[rnd.next() % kFirst.size()], last = kLast[rnd.next() % kLast.size()];
    std::string base;
    base += static_cast<char>(std::tolower(static_cast<unsigned char>(first[0])));
    for (const char c : last) base += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string username = base;
    for (int n = 2; taken.count(username); ++n) username = base + std::to_string(n);
    taken.insert(username);

    User u;
    u.user_id = duo_id(rnd, "DU");
    u.username = username;
    u.status = status[static_cast<std::size_t>(i)];
    // Users with bypass are often the ones who could not enrol; the rest enrol mostly.
    u.enrolled = u.status == std::string("bypass") ? rnd.chance(0.5) : rnd.chance(0.875);
    const auto created = now - std::chrono::days(rnd.between(30, 1500)) - std::chrono::seconds(rnd.between(0, 86'399));
    json last_login = nullptr;
    if (u.enrolled && !rnd.chance(0.04)) {
      const auto ago = std::chrono::seconds(rnd.between(60, 90 * 86'400));
      last_login = std::max(created, now - ago).time_since_epoch().count();
    }
    std::string notes;
    if (u.status == std::string("bypass")) {
      notes = kBypassNotes[rnd.next() % kBypassNotes.size()];
      if (const auto at = notes.find("{n}"); at != std::string::npos)
        notes.replace(at, 3, std::to_string(rnd.between(10'000, 99'999)));
    } else if (u.status == std::string("disabled") && rnd.chance(0.5)) {
      notes = "Left the company";
    }
    json phones = json::array();
    if (u.enrolled) {
      const std::string model = kPhones[rnd.next() % kPhones.size()];
      const bool apple = model.rfind("Apple", 0) == 0;
      char number[24];
      std::snprintf(number, sizeof number, "+447700900%03d", rnd.between(0, 999));
      phones.push_back(
          {{"activated", true},
           {"capabilities", {"auto", "push", "sms", "phone", "mobile_otp"}},
           {"encrypted", "Encrypted"},
           {"extension", ""},
           {"fingerprint", "Configured"},
           {"last_seen", last_login.is_null() ? json("")
                                              : json(iso_local(std::chrono::sys_seconds(
                                                    std::chrono::seconds(last_login.get<std::int64_t>()))))},
           {"model", model},
           {"name", ""},
           {"number", number},
           {"phone_id", duo_id(rnd, "DP")},
           {"platform", apple ? "Apple iOS" : "Google Android"},
           {"postdelay", nullptr},
           {"predelay", nullptr},
           {"screenlock", "Locked"},
           {"sms_passcodes_sent", false},
           {"tampered", "Not tampered"},
           {"type", "Mobile"}});
    }
    json row = {{"alias1", nullptr},
                {"alias2", nullptr},
                {"alias3", nullptr},
                {"alias4", nullptr},
                {"aliases", json::object()},
                {"created", created.time_since_epoch().count()},
                {"desktoptokens", json::array()},
                {"email", username + "@" + domain},
                {"enable_auto_prompt", true},
                {"external_id", nullptr},
                {"firstname", first},
                {"groups", json::array()},
                {"is_enrolled", u.enrolled},
                {"last_directory_sync", nullptr},
                {"last_login", last_login},
                {"lastname", last},
                {"lockout_reason", u.status == std::string("locked out") ? json("Failed Attempts") : json(nullptr)},
                {"notes", notes},
                {"phones", phones},
                {"realname", first + " " + last},
                {"status", u.status},
                {"tokens", json::array()},
                {"u2ftokens", json::array()},
                {"user_id", u.user_id},
                {"username", username},
                {"webauthncredentials", json::array()}};
    u.json = row.dump();
    a.users.push_back(std::move(u));
  }
  std::sort(a.users.begin(), a.users.end(), [](const User& x, const User& y) { return x.username < y.username; });
  return a;
}

}  // namespace

std::vector<Account> seed_accounts(const DuoFakeSeedOptions& options, std::chrono::sys_seconds now) {
  SeedRandom rnd(options.seed);
  std::vector<Account> out;
  const int users = std::max(options.users, 0);
  out.push_back(make_account(rnd, autotask::company_name(0), true, users, now));
  const int psa = std::max(options.psa_companies, 2);
  for (int i = 0; i < std::max(options.children, 0); ++i)
    out.push_back(make_account(rnd,
                               autotask::company_name(1 + i % (psa - 1)) +
                                   (i >= psa - 1 ? " (" + std::to_string(i / (psa - 1) + 1) + ")" : ""),
                               false, users, now));
  return out;
}

}  // namespace sandbox::duo
