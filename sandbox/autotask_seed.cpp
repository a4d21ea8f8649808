#include "sandbox/autotask_seed.hpp"

#include "sandbox/phishing_mails.hpp"
#include "sandbox/seed_random.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>
#include <set>

namespace sandbox::autotask {

using nlohmann::json;
using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;

namespace {

using Rand = SeedRandom;  // sandbox/seed_random.hpp

// A duration between lo and hi, evenly spread on a log scale: many short ones, a few long.
minutes log_between(Rand& rand, minutes lo, minutes hi) {
  const double a = std::log(static_cast<double>(lo.count())), b = std::log(static_cast<double>(hi.count()));
  return minutes(static_cast<int>(std::exp(a + (b - a) * rand.unit())));
}

// The moment a fraction `f` of the way from `a` to `b`.
core::Timestamp between(core::Timestamp a, core::Timestamp b, double f) {
  return a + std::chrono::duration_cast<core::Timestamp::duration>((b - a) * f);
}

std::string date_only(core::Timestamp t) { return format_time(std::chrono::floor<days>(t)).substr(0, 19) + "Z"; }

std::string day_code(core::Timestamp t) {  // 20260302
  const auto s = format_time(t);
  return s.substr(0, 4) + s.substr(5, 2) + s.substr(8, 2);
}

std::string slug(std::string_view name) {
  std::string out;
  for (const char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string code_of(std::string_view name) {  // "Cobalt Logistics" → "COBL"
  std::string out;
  for (const char c : name)
    if (std::isalpha(static_cast<unsigned char>(c)) && out.size() < 4)
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

const std::vector<std::string> kCompanyNames{
    "Alder & Finch Law",       "Brightwater Dental",    "Cobalt Logistics",       "Dunmore Veterinary",
    "Elmstead Accounting",     "Fernhill Architects",   "Greystone Property",     "Harbourside Hotels",
    "Ironbridge Engineering",  "Juniper Health Clinic", "Kestrel Aviation",       "Larkspur Interiors",
    "Meadowbank School",       "Northgate Motors",      "Oakridge Insurance",     "Pinecrest Wealth",
    "Quayside Marine",         "Redfern Manufacturing", "Silverline Couriers",    "Thistle & Rose Florists",
    "Upland Farms Co-op",      "Valemount Surveyors",   "Westbrook Pharmacy",     "Yarrow Creative",
    "Ashcombe Estates",        "Birchwood Care Homes",  "Castleford Builders",    "Dovecote Bakery",
    "Evergreen Charity Trust", "Foxglove Recruitment",  "Goldcrest Travel",       "Hawthorn Legal",
    "Ivybridge Opticians",     "Kingsmead Physio",      "Lindenfield Brewery",    "Marlow Print Works",
    "Nettlebed Garden Centre", "Orchard Lane Nursery",  "Primrose Events",        "Rowan Consulting",
    "Sedgemoor Plumbing",      "Tamarind Restaurants",  "Wrenfield Library Trust"};
const std::vector<std::string> kCities{"London", "Leeds",     "Bristol",  "Manchester", "Reading",
                                       "Oxford", "Cambridge", "Brighton", "York",       "Norwich"};
const std::vector<std::string> kFirstNames{"Olivia",   "James",  "Amelia", "Noah",  "Isla",   "Jack",  "Ava",
                                           "Harry",    "Mia",    "George", "Grace", "Leo",    "Freya", "Oscar",
                                           "Lily",     "Arthur", "Ella",   "Henry", "Sophie", "Ethan", "Zara",
                                           "Mohammed", "Hannah", "Samuel", "Ruby",  "Daniel", "Chloe", "Adam"};
const std::vector<std::string> kLastNames{"Smith",   "Jones",    "Taylor", "Brown",    "Williams", "Wilson", "Johnson",
                                          "Davies",  "Robinson", "Wright", "Thompson", "Evans",    "Walker", "White",
                                          "Roberts", "Green",    "Hall",   "Wood",     "Jackson",  "Clarke", "Hussain",
                                          "Patel",   "Nowak",    "Murphy", "O'Brien",  "Singh",    "Ahmed",  "Kelly"};
const std::vector<std::string> kTechnicians{"Alex Morgan",  "Priya Shah", "Tom Becker", "Jess Okafor",  "Liam Walsh",
                                            "Chloe Martin", "Ravi Patel", "Emma Lewis", "Dan Kowalski", "Sofia Rossi",
                                            "Mark Evans",   "Aisha Khan", "Ben Carter", "Nina Hughes",  "Oliver Grant"};
const std::vector<std::string> kTitles{"Office Manager",   "Director",   "Finance Lead",
                                       "Receptionist",     "Partner",    "Operations Manager",
                                       "Practice Manager", "HR Advisor", "Consultant"};
const std::vector<std::string> kApps{"Sage 50", "Xero", "Dentally", "AutoCAD", "Clio", "Iris Payroll", "Vision"};

// Ticket titles by sub-issue type; {first} {last} {host} {app} {floor} are filled in.
const std::map<int, std::vector<std::string>>& kTicketTitles() {
  static const std::map<int, std::vector<std::string>> titles{
      {101,
       {"Laptop won't boot", "Laptop screen flickering", "New laptop setup for {first}",
        "Docking station not detecting monitors"}},
      {102, {"Printer offline on {floor} floor", "Scan to email not working", "Paper jam error won't clear"}},
      {103, {"Disk space low on {host}", "File server slow this morning", "Server needs a reboot after updates"}},
      {201,
       {"Outlook keeps asking for password", "Teams calls dropping", "OneDrive not syncing",
        "Excel crashes opening shared workbook"}},
      {202, {"{app} won't start after update", "Licence error in {app}", "Install {app} for {first}"}},
      {203, {"Windows updates failing", "Blue screen on startup"}},
      {301, {"VPN disconnects every few minutes", "Can't connect to VPN from home"}},
      {302, {"Wi-Fi dropping in meeting room", "Guest Wi-Fi password change"}},
      {303, {"Firewall blocking supplier portal", "Open port request for {app}"}},
      {304, {"Internet down at main office", "Slow internet at branch office"}},
      {401, {"Mailbox full", "Shared mailbox access for {first}", "Emails stuck in outbox"}},
      {402, {"Suspicious email reported by {first}", "Phishing email - please check", "Spam getting through"}},
      {403, {"Add {first} to distribution list"}},
      {501, {"Defender alert: threat quarantined on {host}", "Malware detected on {host}"}},
      {502, {"MFA not prompting on new phone", "Reset MFA for {first}"}},
      {503, {"Sign-in from unfamiliar location for {first}", "Impossible travel alert for {first}"}},
      {601, {"Password reset for {first}", "Account locked out"}},
      {602, {"New starter: {first} {last}", "Set up accounts for new starter"}},
      {603, {"Leaver: disable account for {first} {last}"}},
      {701, {"Backup failed on {host}", "Backup job warnings overnight"}},
      {702, {"Restore deleted folder for {first}", "Restore previous version of a file"}}};
  return titles;
}
const std::vector<int> kUserSubIssues{201, 201, 201, 601, 601, 601, 101, 101, 102, 401, 401, 402, 402,
                                      301, 302, 303, 202, 202, 203, 502, 503, 602, 603, 702, 403, 304};
const std::vector<int> kAlertSubIssues{103, 103, 304, 501, 701, 701};

std::string fill(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values)
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

int issue_of(int sub_issue) { return sub_issue / 100; }

// The kind of configuration item a ticket of this sub-issue type is about (0: none).
int device_for(int sub_issue) {
  switch (sub_issue) {
    case 101:
    case 203:
    case 501:
      return 1;  // workstation
    case 103:
    case 701:
    case 702:
      return 2;  // server
    case 302:
    case 303:
    case 304:
      return 3;  // network device
    case 102:
      return 4;  // printer
    default:
      return 0;
  }
}

struct Company {
  std::int64_t id;
  std::string name;
  int type;
  int classification;  // 0: none
  bool active;
  int weight;  // relative ticket volume
};

}  // namespace

std::string company_name(int index) {
  if (index <= 0) return "Northwind IT Services";
  const auto n = static_cast<int>(kCompanyNames.size());
  return kCompanyNames[(index - 1) % n] + (index - 1 < n ? "" : " " + std::to_string((index - 1) / n + 1));
}

std::string format_time(core::Timestamp t) {
  return core::format_rfc3339(std::chrono::floor<std::chrono::milliseconds>(t)).substr(0, 23) + "Z";
}

std::map<std::string, std::vector<json>> seed_rows(const SeedCounts& counts, core::Timestamp now) {
  Rand rnd(counts.seed);
  std::map<std::string, std::vector<json>> out;
  const auto ago = [&](days max_days) {  // a moment in the last `max_days`
    return now - std::chrono::duration_cast<core::Timestamp::duration>(max_days * rnd.unit());
  };
  const auto clamp_now = [&](core::Timestamp t) { return std::min(t, now); };

  // --- Resources: the MSP's technicians; the last ones have left ---
  std::vector<std::int64_t> technicians;
  for (int i = 0; i < counts.resources; ++i) {
    const std::string name =
        i < static_cast<int>(kTechnicians.size()) ? kTechnicians[i] : "Tech " + std::to_string(i + 1) + " Bench";
    const auto space = name.find(' ');
    const std::string first = name.substr(0, space), last = name.substr(space + 1);
    const std::int64_t id = 29682885 + i;
    const bool active = i < 2 || i < counts.resources - counts.resources / 8;
    if (active) technicians.push_back(id);
    const std::string user = core::to_lower(first.substr(0, 1) + last);
    out["Resources"].push_back({{"id", id},
                                {"firstName", first},
                                {"lastName", last},
                                {"email", core::to_lower(first) + "." + core::to_lower(last) + "@msp.example"},
                                {"userName", user},
                                {"isActive", active},
                                {"resourceType", "Employee"},
                                {"title", i == 0  ? "Service Desk Manager"
                                          : i < 4 ? "Senior Engineer"
                                                  : "Engineer"},
                                {"hireDate", date_only(ago(days(365 * 6)))}});
  }
  if (technicians.empty()) technicians.push_back(29682885);

  // --- Companies: 0 is the MSP itself; then customers, a few prospects, vendors, lost ones ---
  std::vector<Company> companies;
  std::vector<Company> customers;  // active customers: they raise tickets
  for (int i = 0; i < counts.companies; ++i) {
    Company c{.id = i == 0 ? 0 : 173 + i * 2 + rnd.between(0, 1),
              .type = 1,
              .classification = 0,
              .active = true,
              .weight = 1};
    c.name = company_name(i);
    if (i > 0) {
      if (i % 10 == 7) {
        c.type = 3;  // prospect
      } else if (i % 17 == 11) {
        c.type = 7;  // vendor
      } else if (i % 19 == 5) {
        c.type = 6, c.active = false;  // cancelled
      } else {
        static const int kClasses[] = {1, 2, 2, 3, 3, 3, 4, 4, 5};
        c.classification = kClasses[rnd.between(0, 8)];
        c.weight = c.classification == 1 ? 8 : c.classification == 2 ? 5 : c.classification == 3 ? 3 : 1;
        if (i % 23 == 13) c.active = false, c.classification = 6;  // an old customer, legacy plan
      }
    }
    companies.push_back(c);
    if (c.type == 1 && c.active && i > 0) customers.push_back(c);
  }
  if (customers.empty() && !companies.empty()) customers.push_back(companies.front());
  std::vector<std::int64_t> weighted;  // company ids repeated by weight: a draw favours big customers
  for (const auto& c : customers)
    for (int w = 0; w < c.weight; ++w) weighted.push_back(c.id);

  // --- Contacts ---
  std::map<std::int64_t, std::vector<std::int64_t>> contacts_of;
  std::map<std::int64_t, std::pair<std::string, std::string>> contact_names;
  std::vector<json> contacts;
  for (int i = 0; i < counts.contacts && !companies.empty(); ++i) {
    // Every customer gets one before any gets a second; the rest follow ticket volume.
    const std::int64_t company = i < static_cast<int>(customers.size()) ? customers[i].id
                                 : rnd.chance(0.8) && !weighted.empty() ? rnd.pick(weighted)
                                                                        : rnd.pick(companies).id;
    const auto& c =
        *std::find_if(companies.begin(), companies.end(), [&](const Company& x) { return x.id == company; });
    const std::string first = rnd.pick(kFirstNames), last = rnd.pick(kLastNames);
    const std::int64_t id = 30682001 + i * 3 + rnd.between(0, 2);
    const bool active = c.active && !rnd.chance(0.08);
    if (active) contacts_of[company].push_back(id);
    contact_names[id] = {first, last};
    const auto created = ago(days(365 * 5));
    contacts.push_back({{"id", id},
                        {"companyID", company},
                        {"firstName", first},
                        {"lastName", last},
                        {"emailAddress", core::to_lower(first) + "." + slug(last) + "@" + slug(c.name) + ".example"},
                        {"isActive", active ? 1 : 0},
                        {"phone", "+44 20 7946 0" + std::to_string(rnd.between(100, 999))},
                        {"title", rnd.pick(kTitles)},
                        {"primaryContact", contacts_of[company].size() == 1},
                        {"createDate", format_time(created)},
                        {"lastActivityDate", format_time(created)},
                        {"lastModifiedDate", format_time(between(created, now, rnd.unit()))}});
  }

  // --- Contracts: a managed-services agreement or a block of hours per customer, renewals ---
  std::map<std::int64_t, std::int64_t> contract_of;
  for (int i = 0; i < counts.contracts && !customers.empty(); ++i) {
    const auto& c = customers[i % customers.size()];
    const bool renewal = i >= static_cast<int>(customers.size());  // last year's, now inactive
    const bool managed = c.classification >= 1 && c.classification <= 3;
    const auto start = std::chrono::floor<days>(now) - days(rnd.between(30, 330)) - days(renewal ? 365 : 0);
    const std::int64_t id = 29683501 + i;
    if (!renewal) contract_of[c.id] = id;
    const auto& people = contacts_of[c.id];
    out["Contracts"].push_back({{"id", id},
                                {"companyID", c.id},
                                {"contractName", managed                 ? "Managed Services Agreement"
                                                 : c.classification == 5 ? "Project Services"
                                                                         : "Block Hours - 20h"},
                                {"contractNumber", "C-" + std::to_string(id)},
                                {"contractType", managed                 ? 7
                                                 : c.classification == 5 ? 3
                                                                         : 4},
                                {"status", renewal || !c.active ? 0 : 1},
                                {"startDate", date_only(start)},
                                {"endDate", date_only(start + days(364))},
                                {"contactID", people.empty() ? json(nullptr) : json(people.front())},
                                {"lastModifiedDateTime", format_time(between(start, now, rnd.unit()))}});
  }

  // --- Configuration items ---
  std::map<std::pair<std::int64_t, int>, std::vector<std::int64_t>> items_of;  // by company and type
  std::map<std::int64_t, std::string> host_of;
  for (int i = 0; i < counts.configuration_items && !weighted.empty(); ++i) {
    const std::int64_t company = rnd.pick(weighted);
    const auto& c =
        *std::find_if(companies.begin(), companies.end(), [&](const Company& x) { return x.id == company; });
    static const int kTypes[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5};
    const int type = kTypes[rnd.between(0, 19)];
    static const char* kPrefix[] = {"", "LT", "SRV", "FW", "PRN", "MOB"};
    const std::int64_t id = 5001 + i;
    const std::string title =
        code_of(c.name) + "-" + kPrefix[type] + "-" + (i % 100 < 10 ? "0" : "") + std::to_string(i % 100 + 1);
    std::string serial;
    for (int k = 0; k < 10; ++k) serial += "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"[rnd.between(0, 33)];
    const auto installed = ago(days(365 * 4));
    const bool active = !rnd.chance(0.1);
    if (active) items_of[{company, type}].push_back(id), host_of[id] = title;
    out["ConfigurationItems"].push_back({{"id", id},
                                         {"companyID", company},
                                         {"productID", 200 + type},
                                         {"referenceTitle", title},
                                         {"serialNumber", serial},
                                         {"isActive", active},
                                         {"configurationItemType", type},
                                         {"installDate", date_only(installed)},
                                         {"warrantyExpirationDate", date_only(installed + days(365 * 3))},
                                         {"createDate", format_time(installed)},
                                         {"lastModifiedTime", format_time(ago(days(counts.days)))}});
  }

  // --- Projects and their tasks ---
  static const std::vector<std::string> kProjects{
      "Microsoft 365 Migration", "Server Refresh",          "Firewall Replacement", "Office Move",
      "Windows 11 Rollout",      "Backup Overhaul",         "Network Upgrade",      "Intune Enrolment",
      "SharePoint Migration",    "Phone System Replacement"};
  struct ProjectInfo {
    std::int64_t id;
    int status;
    core::Timestamp created, end;
  };
  std::vector<ProjectInfo> projects;
  for (int i = 0; i < counts.projects && !customers.empty(); ++i) {
    const auto& c = i % 7 == 6 ? companies.front() : rnd.pick(customers);
    const auto created = ago(days(240));
    const auto start = created + days(rnd.between(1, 14));
    const auto end = start + days(rnd.between(30, 120));
    const int roll = rnd.between(0, 9);
    const int status = roll < 4 ? 5 : roll < 8 ? 2 : roll < 9 ? 1 : 3;
    const auto completed = clamp_now(std::min(end, between(start, now, 0.5 + rnd.unit() / 2)));
    const auto last = status == 5 ? completed : clamp_now(between(start, now, rnd.unit()));
    const std::int64_t id = 2001 + i * 2;
    projects.push_back({id, status, created, end});
    out["Projects"].push_back(
        {{"id", id},
         {"projectName", kProjects[i % kProjects.size()] + " - " + c.name},
         {"projectNumber", "P" + day_code(created) + "." + (i < 9 ? "000" : "00") + std::to_string(i + 1)},
         {"companyID", c.id},
         {"status", status},
         {"projectType", c.id == 0 ? 8 : 5},
         {"projectLeadResourceID", technicians[i % technicians.size()]},
         {"description", "Scoped with " + c.name + "."},
         {"startDateTime", format_time(start)},
         {"endDateTime", format_time(end)},
         {"createDateTime", format_time(created)},
         {"completedDateTime", status == 5 ? json(format_time(completed)) : json(nullptr)},
         {"lastActivityDateTime", format_time(std::max(last, created))}});
  }
  static const std::vector<std::string> kTasks{
      "Kick-off meeting",           "Audit current setup", "Order hardware", "Configure new environment",
      "Pilot group rollout",        "Migrate users",       "User training",  "Decommission old equipment",
      "Documentation and handover", "Test backups"};
  std::vector<std::pair<std::int64_t, std::int64_t>> tasks_done;  // (task id, resource) for time entries
  std::vector<core::Timestamp> task_times;
  for (int i = 0; i < counts.tasks && !projects.empty(); ++i) {
    const auto& p = projects[i % projects.size()];
    const int n = i / static_cast<int>(projects.size());
    const auto created = clamp_now(p.created + hours(rnd.between(1, 72)));
    const int status = p.status == 5 ? 5 : rnd.chance(0.4) ? 5 : rnd.chance(0.5) ? 8 : 1;
    const auto completed = clamp_now(between(created, now, rnd.unit()));
    const std::int64_t resource = rnd.pick(technicians);
    const std::int64_t id = 7001 + i;
    if (status == 5) tasks_done.emplace_back(id, resource), task_times.push_back(completed);
    out["Tasks"].push_back({{"id", id},
                            {"projectID", p.id},
                            {"title", kTasks[n % kTasks.size()]},
                            {"taskNumber", "T" + day_code(created) + "." + std::to_string(9000 + i)},
                            {"status", status},
                            {"assignedResourceID", status == 1 && rnd.chance(0.5) ? json(nullptr) : json(resource)},
                            {"description", ""},
                            {"estimatedHours", rnd.between(1, 16)},
                            {"createDateTime", format_time(created)},
                            {"completedDateTime", status == 5 ? json(format_time(completed)) : json(nullptr)},
                            {"lastActivityDateTime",
                             format_time(status == 5 ? completed : clamp_now(between(created, now, rnd.unit())))}});
  }

  // --- Tickets: created over the last `days`, on working days and hours mostly, ids in order ---
  std::vector<core::Timestamp> created;
  for (int i = 0; i < counts.tickets; ++i) {
    core::Timestamp t;
    for (int attempt = 0;; ++attempt) {
      const auto day = std::chrono::floor<days>(now) - days(rnd.between(0, std::max(counts.days - 1, 0)));
      const bool working = rnd.chance(0.85);
      // One draw per statement: the operands of + are evaluated in no fixed order.
      t = day + (working ? hours(rnd.between(7, 17)) : hours(rnd.between(0, 23)));
      t += minutes(rnd.between(0, 59));
      t += std::chrono::seconds(rnd.between(0, 59));
      const auto weekday = std::chrono::weekday(std::chrono::floor<days>(t)).c_encoding();
      if ((weekday == 0 || weekday == 6) && rnd.chance(0.8) && attempt < 3) continue;
      break;
    }
    if (t >= now) t = now - minutes(rnd.between(2, 240));
    created.push_back(t);
  }
  std::sort(created.begin(), created.end());
  std::map<std::string, int> per_day;
  struct Done {
    std::int64_t id, resource;
    core::Timestamp start, end;
    std::string title;
  };
  std::vector<Done> done;
  std::map<std::int64_t, core::Timestamp> company_activity, contact_activity;
  std::vector<std::int64_t> ticket_ids;
  for (int i = 0; i < counts.tickets && !weighted.empty(); ++i) {
    const auto create = created[i];
    const auto age = now - create;
    const std::int64_t id = 71001 + i;
    ticket_ids.push_back(id);
    const std::int64_t company = rnd.pick(weighted);
    const auto& c =
        *std::find_if(companies.begin(), companies.end(), [&](const Company& x) { return x.id == company; });
    const bool alert = c.classification >= 1 && c.classification <= 3 && rnd.chance(0.25);
    const int sub = alert ? rnd.pick(kAlertSubIssues) : rnd.pick(kUserSubIssues);
    const auto& people = contacts_of[company];
    const std::int64_t contact = alert || people.empty() ? 0 : rnd.pick(people);
    const auto name = contact ? contact_names[contact] : std::pair<std::string, std::string>{"Sam", "Taylor"};
    const auto& machines = items_of[{company, device_for(sub)}];
    const std::int64_t item = machines.empty() ? 0 : rnd.pick(machines);
    const std::string host = item ? host_of[item] : code_of(c.name) + "-SRV-01";
    const int roll = rnd.between(0, 99);
    const int priority = alert ? (roll < 15 ? 1 : 2) : roll < 3 ? 4 : roll < 18 ? 1 : roll < 78 ? 2 : 3;
    const std::string pattern = rnd.pick(kTicketTitles().at(sub));  // drawn before the arguments below
    const std::string title = fill(pattern, {{"{first}", name.first},
                                             {"{last}", name.second},
                                             {"{host}", host},
                                             {"{app}", rnd.pick(kApps)},
                                             {"{floor}", rnd.chance(0.5) ? "2nd" : "ground"}});
    // Status: most of what is older than a week is done; the last days are still being worked.
    const double p_complete = age > days(14) ? 0.97 : age > days(2) ? 0.8 : 0.45;
    bool complete = rnd.chance(p_complete) && age > minutes(10);
    int status = 5;
    if (!complete) {
      const int r = rnd.between(0, 99);
      if (age < days(1) && r < 40)
        status = 1;
      else
        status = r < 50 ? 8 : r < 80 ? 7 : r < 92 ? 12 : 9;
    }
    const minutes fastest = alert ? minutes(5) : priority == 4 ? minutes(30) : minutes(20);
    const minutes slowest = alert           ? hours(6)
                            : priority == 4 ? hours(8)
                            : priority == 1 ? hours(24)
                            : priority == 2 ? days(5)
                                            : days(10);
    const auto elapsed = std::chrono::duration_cast<minutes>(age);
    std::optional<core::Timestamp> first_response, completed;
    if (status != 1) {
      const auto wait = std::min(log_between(rnd, minutes(2), priority == 4 ? minutes(30) : minutes(240)),
                                 std::max(elapsed / 4, minutes(1)));
      first_response = create + wait;
    }
    if (complete) {
      auto took = log_between(rnd, fastest, slowest);
      if (took >= elapsed) took = std::max(minutes(1), elapsed * 3 / 4);
      completed = std::max(create + took, *first_response);
    }
    auto last = completed ? *completed + minutes(rnd.chance(0.2) ? rnd.between(1, 60 * 24 * 3) : rnd.between(0, 5))
                          : between(first_response ? *first_response : create, now, rnd.unit());
    last = clamp_now(last);
    static const int kSla[] = {0, 8, 24, 72, 4};  // hours, by priority
    const std::string number = "T" + day_code(create) + "." + [&] {
      std::string n = std::to_string(++per_day[day_code(create)]);
      return std::string(4 - std::min<std::size_t>(4, n.size()), '0') + n;
    }();
    const std::int64_t resource = rnd.pick(technicians);
    json ticket{{"id", id},
                {"ticketNumber", number},
                {"title", title},
                {"description", alert ? "Raised by the monitoring agent on " + host + "."
                                      : "Reported by " + name.first + " " + name.second + ": " + title + "."},
                {"status", status},
                {"priority", priority},
                {"queueID", alert              ? 8
                            : rnd.chance(0.75) ? 29682833
                                               : 29682969},
                {"companyID", company},
                {"contactID", contact ? json(contact) : json(nullptr)},
                {"assignedResourceID", status == 1 ? json(nullptr) : json(resource)},
                {"createDate", format_time(create)},
                {"completedDate", completed ? json(format_time(*completed)) : json(nullptr)},
                {"lastActivityDate", format_time(last)},
                {"dueDateTime", format_time(create + hours(kSla[priority]))},
                {"firstResponseDateTime", first_response ? json(format_time(*first_response)) : json(nullptr)},
                {"resolvedDateTime", completed ? json(format_time(*completed)) : json(nullptr)},
                {"issueType", issue_of(sub)},
                {"subIssueType", sub},
                {"source", alert             ? 8
                           : rnd.chance(0.5) ? 4
                           : rnd.chance(0.6) ? 2
                                             : -1},
                {"ticketType", alert                ? 5
                               : issue_of(sub) == 6 ? 1
                                                    : 2},
                {"contractID", contract_of.contains(company) ? json(contract_of[company]) : json(nullptr)},
                {"configurationItemID", item ? json(item) : json(nullptr)},
                {"projectID", nullptr},
                {"estimatedHours", 0},
                {"lastTrackedModificationDateTime", format_time(last)}};
    out["Tickets"].push_back(std::move(ticket));
    company_activity[company] = std::max(company_activity[company], last);
    if (contact) contact_activity[contact] = std::max(contact_activity[contact], last);
    if (completed && !alert) done.push_back({id, resource, *first_response, *completed, title});
  }

  // --- Reported mails: the most recent open tickets a contact raised become phishing reports, the
  // first six with the forwarded message attached (TicketAttachments), the next with its headers
  // pasted into the description (sandbox/phishing_mails.hpp). No random draw: the rest of the MSP
  // is the same with or without them. ---
  {
    const auto& mails = phishing::reported_mails();
    auto& tickets = out["Tickets"];
    std::vector<json*> reports;
    for (auto it = tickets.rbegin(); it != tickets.rend() && reports.size() < mails.size() + 1; ++it)
      if ((*it)["status"] != 5 && !(*it)["contactID"].is_null()) reports.push_back(&*it);
    std::int64_t attachment = 1;
    for (std::size_t i = 0; i < reports.size(); ++i) {
      auto& t = *reports[i];
      const auto contact = t["contactID"].get<std::int64_t>();
      const auto [first, last] = contact_names[contact];
      t["issueType"] = 4;
      t["subIssueType"] = 402;  // Email / Spam / Phishing
      t["source"] = 4;          // Email
      t["ticketType"] = 2;
      t["queueID"] = 29682833;
      if (i == mails.size()) {
        t["title"] = "Phishing report: Your account access has been limited";
        t["description"] = phishing::pasted_headers_description();
        continue;
      }
      const auto& mail = mails[i];
      t["title"] = "Phishing report: " + mail.subject;
      t["description"] = first + " " + last + " forwarded this e-mail as suspected phishing; it is attached.";
      out["TicketAttachments"].push_back({{"id", attachment++},
                                          {"parentID", t["id"]},
                                          {"ticketID", t["id"]},
                                          {"title", mail.file_name},
                                          {"fullPath", mail.file_name},
                                          {"contentType", mail.content_type},
                                          {"attachmentType", "FILE_ATTACHMENT"},
                                          {"fileSize", mail.raw.size()},
                                          {"publish", 1},
                                          {"attachDate", t["createDate"]},
                                          {"attachedByContactID", contact},
                                          {"attachedByResourceID", nullptr},
                                          {"creatorType", 2},
                                          {"opportunityID", nullptr},
                                          {"data", core::base64(mail.raw)}});
    }
  }

  // --- Time entries: the work on completed tickets and tasks, ids in the order they were logged ---
  std::vector<json> entries;
  for (int i = 0; i < counts.time_entries && (!done.empty() || !tasks_done.empty()); ++i) {
    const bool on_task = !tasks_done.empty() && (done.empty() || rnd.chance(0.15));
    std::int64_t resource;
    core::Timestamp start;
    json ticket_id = nullptr, task_id = nullptr;
    std::string notes;
    if (on_task) {
      const int k = rnd.between(0, static_cast<int>(tasks_done.size()) - 1);
      task_id = tasks_done[k].first;
      resource = tasks_done[k].second;
      start = task_times[k] - hours(rnd.between(1, 8));
      notes = "Project work.";
    } else {
      const auto& d = rnd.pick(done);
      ticket_id = d.id;
      resource = d.resource;
      start = between(d.start, d.end, rnd.unit());
      notes = "Worked on: " + d.title;
    }
    const double hours_worked = 0.25 * rnd.between(1, 12);
    const auto end = clamp_now(start + minutes(static_cast<int>(hours_worked * 60)));
    const auto logged = clamp_now(end + minutes(rnd.between(1, 90)));
    entries.push_back({{"id", 0},
                       {"ticketID", ticket_id},
                       {"taskID", task_id},
                       {"resourceID", resource},
                       {"dateWorked", date_only(start)},
                       {"startDateTime", format_time(start)},
                       {"endDateTime", format_time(end)},
                       {"hoursWorked", hours_worked},
                       {"hoursToBill", hours_worked},
                       {"summaryNotes", notes},
                       {"isNonBillable", rnd.chance(0.1)},
                       {"createDateTime", format_time(logged)},
                       {"lastModifiedDateTime", format_time(rnd.chance(0.1) ? clamp_now(logged + days(1)) : logged)}});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const json& a, const json& b) {
    return a["createDateTime"].get<std::string>() < b["createDateTime"].get<std::string>();
  });
  for (std::size_t i = 0; i < entries.size(); ++i) entries[i]["id"] = 240001 + static_cast<std::int64_t>(i);
  out["TimeEntries"] = std::move(entries);

  // --- Companies, now that their activity is known ---
  for (const auto& c : companies) {
    const auto created = now - days(rnd.between(365, 365 * 8));
    const auto activity =
        company_activity.contains(c.id) ? company_activity[c.id] : between(created, now, rnd.unit() / 2);
    out["Companies"].push_back(
        {{"id", c.id},
         {"companyName", c.name},
         {"companyNumber", c.id == 0 ? json("0") : json("C" + std::to_string(10000 + c.id))},
         {"companyType", c.type},
         {"classification", c.classification ? json(c.classification) : json(nullptr)},
         {"isActive", c.active},
         {"phone", "+44 20 7946 0" + std::to_string(rnd.between(100, 999))},
         {"webAddress", c.id == 0 ? "https://www.msp.example" : "https://www." + slug(c.name) + ".example"},
         {"city", rnd.pick(kCities)},
         {"ownerResourceID", technicians[static_cast<std::size_t>(c.id) % technicians.size()]},
         {"parentCompanyID", nullptr},
         {"createDate", format_time(created)},
         {"lastActivityDate", format_time(activity)},
         {"lastTrackedModifiedDateTime", format_time(activity)}});
  }
  for (auto& contact : contacts) {
    const auto id = contact["id"].get<std::int64_t>();
    if (contact_activity.contains(id)) contact["lastActivityDate"] = format_time(contact_activity[id]);
  }
  out["Contacts"] = std::move(contacts);

  // --- Tag groups, tags, and tags on tickets ---
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kTagGroups{
      {"Root Cause", {"User Error", "Hardware Fault", "Software Bug", "Configuration Change", "Vendor Outage"}},
      {"Customer Impact", {"Single User", "Department", "Site Down"}},
      {"Automation", {"Auto-Resolved", "Script Candidate", "Runbook Exists"}},
      {"Billing", {"Billable", "Goodwill", "Project Work"}},
      {"Security", {"Phishing", "Compromised Account", "Policy Exception"}},
      {"Vendor", {"Microsoft", "ISP", "Line of Business Vendor"}}};
  const int groups = std::min<int>(counts.tag_groups, static_cast<int>(kTagGroups.size()));
  for (int g = 0; g < groups; ++g)
    out["TagGroups"].push_back({{"id", g + 1},
                                {"name", kTagGroups[g].first},
                                {"isActive", g != 3 || groups < 4},
                                {"displayColor", 1 + g},
                                {"isSystem", false}});
  std::vector<std::int64_t> tag_ids;
  for (int t = 0; t < counts.tags && groups > 0; ++t) {
    const int g = t % groups;
    const auto& labels = kTagGroups[g].second;
    const int n = t / groups;
    const std::string label = labels[n % labels.size()] +
                              (n < static_cast<int>(labels.size()) ? "" : " " + std::to_string(n / labels.size() + 1));
    const std::int64_t id = 101 + t;
    tag_ids.push_back(id);
    out["Tags"].push_back(
        {{"id", id}, {"tagGroupID", g + 1}, {"label", label}, {"isActive", t % 9 != 8}, {"isSystem", false}});
  }
  std::set<std::pair<std::int64_t, std::int64_t>> tagged;
  const std::size_t possible = ticket_ids.size() * tag_ids.size();
  for (int i = 0;
       static_cast<int>(tagged.size()) < counts.ticket_tags && tagged.size() < possible && i < counts.ticket_tags * 20;
       ++i)
    tagged.emplace(rnd.pick(ticket_ids), rnd.pick(tag_ids));
  std::int64_t association = 1;
  for (const auto& [ticket, tag] : tagged)
    out["TicketTagAssociations"].push_back({{"id", association++}, {"ticketID", ticket}, {"tagID", tag}});

  // Every entity has its list, empty or not.
  for (const char* name :
       {"Tickets", "Companies", "Contacts", "Resources", "TimeEntries", "Projects", "Tasks", "Contracts",
        "ConfigurationItems", "TagGroups", "Tags", "TicketTagAssociations", "TicketAttachments"})
    out[name];
  return out;
}

}  // namespace sandbox::autotask
