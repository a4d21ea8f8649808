#include "sandbox/pax8_seed.hpp"

#include "sandbox/seed_random.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>

namespace sandbox::pax8 {

using std::chrono::days;
using std::chrono::sys_days;

namespace {

using Rand = SeedRandom;  // sandbox/seed_random.hpp

struct ProductSpec {
  const char* vendor;
  const char* name;
  const char* sku;
  const char* description;
  double price;  // a month per unit, GBP
  double cost;
  bool commitment;  // annual term only
  bool microsoft_365_plan;
};

// Prices are the shape of Pax8's UK list (a month per user or device), not its figures.
constexpr ProductSpec kProducts[] = {
    {"Microsoft", "Microsoft 365 Business Basic", "MST-M365-BB", "Web and mobile Office apps, Exchange and Teams", 4.90,
     4.41, false, true},
    {"Microsoft", "Microsoft 365 Business Standard", "MST-M365-BS", "Desktop Office apps, Exchange and Teams", 10.30,
     9.27, false, true},
    {"Microsoft", "Microsoft 365 Business Premium", "MST-M365-BP", "Business Standard with Intune and Defender", 18.10,
     16.29, false, true},
    {"Microsoft", "Microsoft 365 E3", "MST-M365-E3", "Enterprise Office apps, security and compliance", 33.00, 29.70,
     true, true},
    {"Microsoft", "Exchange Online (Plan 1)", "MST-EXO-P1", "Business email, 50 GB mailbox", 3.30, 2.97, false, false},
    {"Microsoft", "Microsoft Defender for Business", "MST-MDB", "Endpoint protection for up to 300 users", 2.50, 2.25,
     false, false},
    {"Microsoft", "Microsoft Teams Essentials", "MST-TEAMS-ESS", "Meetings, chat and 10 GB storage", 3.30, 2.97, false,
     false},
    {"Microsoft", "Microsoft Entra ID P1", "MST-ENTRA-P1", "Conditional access and self-service password reset", 5.00,
     4.50, true, false},
    {"Microsoft", "Power BI Pro", "MST-PBI-PRO", "Self-service analytics", 11.50, 10.35, true, false},
    {"Microsoft", "Microsoft 365 Apps for business", "MST-M365-APPS", "Desktop Office apps and OneDrive", 8.60, 7.74,
     false, false},
    {"Acronis", "Acronis Cyber Protect Cloud - Workstation", "ACR-CPC-WS", "Backup of a workstation, per device", 3.20,
     2.40, false, false},
    {"Acronis", "Acronis Cyber Protect Cloud - Server", "ACR-CPC-SRV", "Backup of a server, per device", 21.00, 16.80,
     false, false},
    {"Dropsuite", "Dropsuite Microsoft 365 Backup", "DRP-M365-BKP", "Mailbox, OneDrive, SharePoint and Teams backup",
     2.10, 1.55, false, false},
    {"Veeam", "Veeam Backup for Microsoft 365", "VEE-M365-BKP", "Backup of Microsoft 365 data, per user", 2.60, 1.95,
     false, false},
    {"Axcient", "Axcient x360Recover", "AXC-X360-REC", "Image backup and recovery, per device", 14.00, 10.50, false,
     false},
    {"SentinelOne", "SentinelOne Singularity Core", "S1-SING-CORE", "Endpoint protection, per endpoint", 3.80, 2.90,
     false, false},
    {"Huntress", "Huntress Managed EDR", "HNT-MEDR", "Managed detection and response, per endpoint", 3.50, 2.75, false,
     false},
    {"Proofpoint", "Proofpoint Essentials - Business", "PFPT-ESS-BUS", "Email security and continuity, per user", 2.60,
     1.90, false, false},
    {"Bitdefender", "Bitdefender GravityZone Business Security", "BD-GZ-BS", "Antimalware, per endpoint", 1.90, 1.40,
     false, false},
    {"Keeper Security", "Keeper Business", "KPR-BUS", "Password management, per user", 3.30, 2.50, false, false},
    {"Cisco", "Duo Essentials", "CSC-DUO-ESS", "Multi-factor authentication, per user", 2.40, 1.80, false, false},
};
constexpr std::uint32_t kCatalogueSeed = 8;  // the catalogue's ids are the same whatever the seed

// Companies with no PSA counterpart: first × second words, chosen to share no word with the PSA
// fake's names (autotask_seed.cpp).
constexpr const char* kNoneFirst[] = {"Quillon", "Zephyr",    "Obsidian", "Tavistock",    "Corvid", "Halcyon",
                                      "Vantage", "Kilnworth", "Lumen",    "Brackenridge", "Ostler", "Saffron"};
constexpr const char* kNoneSecond[] = {"Robotics", "Textiles",   "Analytics",  "Studios", "Ceramics",
                                       "Foods",    "Glassworks", "Outfitters", "Labs",    "Freight"};
constexpr const char* kAddedWords[] = {"Group", "Services", "Partners", "UK", "Holdings"};
constexpr const char* kLegalSuffixes[] = {"ltd", "limited", "inc",  "incorporated", "llc",  "l l c",   "gmbh",
                                          "pty", "plc",     "corp", "corporation",  "co",   "company", "ag",
                                          "bv",  "b v",     "nv",   "sa",           "sarl", "srl",     "oy",
                                          "ab",  "kg",      "pte",  "lp",           "llp"};

double round2(double v) { return std::round(v * 100.0) / 100.0; }

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80; }

// Equal to `name` once normalised: case, punctuation, a legal suffix.
std::string normalised_variant(const std::string& name, int kind) {
  switch (kind % 8) {
    case 0:
      return name + " Ltd";
    case 1:
      return upper(name) + ", INC.";
    case 2:
      return name + " Limited";
    case 3:
      return lower(name);
    case 4:
      return name + " LLC";
    case 5:
      return name + ", Ltd.";
    case 6:
      return upper(name);
    default:
      return name + " Pty. Ltd.";
  }
}

// Close to `name` but not equal even normalised: a typo, a word dropped or a word added.
std::string similar_variant(const std::string& name, Rand& rnd) {
  const int kind = rnd.between(0, 3);
  const int added = rnd.between(0, static_cast<int>(std::size(kAddedWords)) - 1);
  const int at = rnd.between(0, 1000);
  std::string out;
  // The longest word of letters: where a typo goes.
  std::size_t best = 0, best_len = 0;
  for (std::size_t i = 0; i < name.size();) {
    std::size_t j = i;
    while (j < name.size() && std::isalpha(static_cast<unsigned char>(name[j]))) ++j;
    if (j - i > best_len) best = i, best_len = j - i;
    i = j == i ? i + 1 : j;
  }
  std::vector<std::string> words;  // split on spaces
  for (std::size_t start = 0, k = 0; k <= name.size(); ++k)
    if (k == name.size() || name[k] == ' ') {
      if (k > start) words.push_back(name.substr(start, k - start));
      start = k + 1;
    }
  const bool numbered = !words.empty() && std::isdigit(static_cast<unsigned char>(words.back()[0]));
  if (kind == 0 && best_len >= 5) {  // two letters swapped
    out = name;
    const std::size_t p = best + 1 + static_cast<std::size_t>(at) % (best_len - 3);
    if (out[p] == out[p + 1])
      out.erase(p, 1);
    else
      std::swap(out[p], out[p + 1]);
  } else if (kind == 1 && best_len >= 5) {  // a letter dropped
    out = name;
    out.erase(best + 1 + static_cast<std::size_t>(at) % (best_len - 2), 1);
  } else if (kind == 2 && words.size() >= 3 && !numbered) {  // the last word dropped
    words.pop_back();
    while (!words.empty() && !word_char(words.back()[0])) words.pop_back();
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  }
  if (out.empty() || normalised_name(out) == normalised_name(name) ||
      trigram_similarity(normalised_name(out), normalised_name(name)) < 0.45)
    out = name + " " + kAddedWords[added];
  return out;
}

sys_days first_of_month(sys_days d, int months_back) {
  const std::chrono::year_month_day ymd(d);
  return sys_days(std::chrono::year_month_day(ymd.year() / ymd.month() / 1) - std::chrono::months(months_back));
}
sys_days last_of_month(sys_days first) {
  const std::chrono::year_month_day ymd(first);
  return sys_days(std::chrono::year_month_day_last(ymd.year() / ymd.month() / std::chrono::last));
}

}  // namespace

const char* match_name(Match m) {
  switch (m) {
    case Match::exact:
      return "exact";
    case Match::normalised:
      return "normalised";
    case Match::similar:
      return "similar";
    default:
      return "none";
  }
}

std::string normalised_name(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (word_char(c))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const std::string suffix : kLegalSuffixes) {
      const auto tail = " " + suffix;
      if (out.size() > tail.size() && out.compare(out.size() - tail.size(), tail.size(), tail) == 0) {
        out.resize(out.size() - tail.size());
        stripped = true;
        break;
      }
    }
  }
  return out;
}

double trigram_similarity(std::string_view a, std::string_view b) {
  const auto trigrams = [](std::string_view text) {
    std::set<std::string> out;
    for (std::size_t i = 0; i < text.size();) {
      if (!word_char(text[i])) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < text.size() && word_char(text[j])) ++j;
      const std::string padded = "  " + lower(std::string(text.substr(i, j - i))) + " ";
      for (std::size_t k = 0; k + 3 <= padded.size(); ++k) out.insert(padded.substr(k, 3));
      i = j;
    }
    return out;
  };
  const auto x = trigrams(a), y = trigrams(b);
  std::size_t common = 0;
  for (const auto& t : x) common += y.count(t);
  const auto all = x.size() + y.size() - common;
  return all == 0 ? 0.0 : static_cast<double>(common) / static_cast<double>(all);
}

Data seed_data(const Pax8SeedCounts& counts, core::Timestamp now) {
  Data out;
  const sys_days today = std::chrono::floor<days>(now);
  const auto at = [](sys_days d, int minute_of_day) { return Minutes(d) + std::chrono::minutes(minute_of_day); };

  // --- The catalogue ---
  Rand catalogue(kCatalogueSeed);
  for (const auto& p : kProducts)
    out.products.push_back({.id = catalogue.uuid(),
                            .name = p.name,
                            .vendor_name = p.vendor,
                            .sku = p.sku,
                            .short_description = p.description,
                            .price = p.price,
                            .cost = p.cost,
                            .requires_commitment = p.commitment});
  std::vector<std::size_t> plans, extras;  // Microsoft 365 plans; everything else
  for (std::size_t i = 0; i < std::size(kProducts); ++i)
    (kProducts[i].microsoft_365_plan ? plans : extras).push_back(i);

  Rand rnd(counts.seed);
  const int n = std::max(counts.companies, 0);
  const int per_company = std::max(counts.subscriptions_per_company, 0);
  const int months = std::max(counts.invoices_per_company, 0);
  const auto size = [&](int k) { return static_cast<std::size_t>(n) * static_cast<std::size_t>(k); };
  out.companies.reserve(size(1));
  out.subscriptions.reserve(size(per_company + 1));
  out.live.reserve(size(per_company));
  out.orders.reserve(size(per_company + 1));
  out.invoices.reserve(size(months));
  out.invoice_items.reserve(size(months * (per_company + 1)));

  // --- Companies: the categories dealt in their shares, then shuffled ---
  const int exact = (n + 1) / 3, normalised = (n + 1) / 3, similar = (n + 3) / 6;
  std::vector<Match> kinds;
  for (int i = 0; i < n; ++i)
    kinds.push_back(i < exact                          ? Match::exact
                    : i < exact + normalised           ? Match::normalised
                    : i < exact + normalised + similar ? Match::similar
                                                       : Match::none);
  rnd.shuffle(kinds);
  std::vector<int> psa;  // PSA companies to name after, 1.. (0 is the MSP)
  for (int i = 1; i < counts.psa_companies; ++i) psa.push_back(i);
  rnd.shuffle(psa);
  std::vector<int> none_names;
  for (int i = 0; i < static_cast<int>(std::size(kNoneFirst) * std::size(kNoneSecond)); ++i) none_names.push_back(i);
  rnd.shuffle(none_names);
  std::size_t matched = 0, unmatched = 0;
  for (int i = 0; i < n; ++i) {
    Company c;
    c.id = rnd.uuid();
    c.match = psa.empty() ? Match::none : kinds[static_cast<std::size_t>(i)];
    if (c.match == Match::none) {
      const auto k = static_cast<std::size_t>(none_names[unmatched % none_names.size()]);
      const auto round = unmatched / none_names.size();
      c.name = std::string(kNoneFirst[k / std::size(kNoneSecond)]) + " " + kNoneSecond[k % std::size(kNoneSecond)] +
               (round == 0 ? "" : " " + std::to_string(round + 1));
      ++unmatched;
    } else {
      c.psa_name = autotask::company_name(psa[matched++ % psa.size()]);
      c.name = c.match == Match::exact        ? c.psa_name
               : c.match == Match::normalised ? normalised_variant(c.psa_name, rnd.between(0, 7))
                                              : similar_variant(c.psa_name, rnd);
    }
    c.status = rnd.chance(0.07) ? "Inactive" : "Active";
    if (rnd.chance(0.3)) c.external_id = "NW-" + std::to_string(10'000 + rnd.between(0, 89'999));
    c.updated = at(today - days(rnd.between(0, 400)), rnd.between(0, 24 * 60 - 1));
    out.companies.push_back(std::move(c));
  }

  // --- Per company: orders, the subscriptions they created, invoices ---
  std::size_t item_counter = 0, unnamed = 0;
  // The newest invoice is this month's once the 5th has come (Pax8 generates them on the 4th).
  const int newest_back = static_cast<unsigned>(std::chrono::year_month_day(today).day()) >= 5 ? 0 : 1;
  const sys_days oldest_period = first_of_month(today, newest_back + std::max(months - 1, 0));
  for (const auto& company : out.companies) {
    const int seats = rnd.between(3, 60);
    // What the company buys: a Microsoft 365 plan first, then other products, each once while
    // the catalogue lasts.
    std::vector<std::size_t> picks{plans[static_cast<std::size_t>(rnd.between(0, static_cast<int>(plans.size()) - 1))]};
    auto others = extras;
    rnd.shuffle(others);
    for (std::size_t k = 0; static_cast<int>(picks.size()) < per_company; ++k)
      picks.push_back(k < others.size()
                          ? others[k]
                          : static_cast<std::size_t>(rnd.between(0, static_cast<int>(std::size(kProducts)) - 1)));
    picks.resize(static_cast<std::size_t>(per_company));

    struct Planned {
      std::size_t product;
      const char* status;
    };
    std::vector<Planned> planned;
    for (const auto p : picks) {
      const int roll = rnd.between(0, 99);
      planned.push_back({p, roll < 75 ? "Active" : roll < 85 ? "Cancelled" : roll < 92 ? "PendingCancel" : "Trial"});
    }
    const bool ghost = rnd.between(0, 2) == 0;  // a subscription that no longer exists

    // Orders: a trial on an order of its own in the last weeks, the rest in orders of one to three
    // lines; the ghost on one of its own placed before the oldest invoice's month.
    struct Draft {
      sys_days date;
      std::vector<std::size_t> lines;  // into planned; planned.size() for the ghost
    };
    std::vector<Draft> drafts;
    std::vector<std::size_t> rest;
    for (std::size_t k = 0; k < planned.size(); ++k) {
      if (std::string_view(planned[k].status) == "Trial")
        drafts.push_back({today - days(rnd.between(1, 25)), {k}});
      else
        rest.push_back(k);
    }
    for (std::size_t k = 0; k < rest.size();) {
      const auto take = std::min<std::size_t>(rest.size() - k, static_cast<std::size_t>(rnd.between(1, 3)));
      Draft d{today - days(rnd.between(40, 1500)), {}};
      for (std::size_t t = 0; t < take; ++t) d.lines.push_back(rest[k + t]);
      drafts.push_back(std::move(d));
      k += take;
    }
    if (ghost) drafts.push_back({oldest_period - days(rnd.between(60, 700)), {planned.size()}});
    std::stable_sort(drafts.begin(), drafts.end(), [](const Draft& a, const Draft& b) { return a.date < b.date; });

    const std::size_t mine = out.subscriptions.size();  // this company's subscriptions start here
    std::size_t gone = SIZE_MAX;
    for (const auto& d : drafts) {
      Order order{.id = rnd.uuid(),
                  .company_id = company.id,
                  .created = at(d.date - days(1), rnd.between(8 * 60, 18 * 60)),
                  .ordered_by = "Pax8 Partner",
                  .ordered_by_user_email = "billing@msp.example",
                  .line_items = {}};
      if (rnd.chance(0.15)) order.ordered_by = "Customer", order.ordered_by_user_email = "it@customer.example";
      for (const auto line : d.lines) {
        const bool is_ghost = line == planned.size();
        Subscription s;
        s.product = is_ghost ? extras[static_cast<std::size_t>(rnd.between(0, static_cast<int>(extras.size()) - 1))]
                             : planned[line].product;
        const auto& product = out.products[s.product];
        s.id = rnd.uuid();
        s.company_id = company.id;
        s.status = is_ghost ? "Cancelled" : planned[line].status;
        const std::string_view status = s.status;
        s.billing_term = status == "Trial"                                ? "Trial"
                         : product.requires_commitment || rnd.chance(0.3) ? "Annual"
                                                                          : "Monthly";
        s.quantity = std::max(1, seats + rnd.between(-seats / 4, seats / 8));
        s.price = product.price;
        s.partner_cost = product.cost;
        s.start = d.date;
        s.created = order.created;
        sys_days updated = d.date;
        if (is_ghost) {  // ended with the oldest invoice's month
          updated = last_of_month(oldest_period);
          s.end = updated;
        } else if (status == "Cancelled") {
          updated = d.date + days(rnd.between(30, static_cast<int>((today - d.date).count()) - 1));
          s.end = updated;
        } else if (status == "PendingCancel") {
          updated = today - days(rnd.between(0, 10));
          s.end = last_of_month(first_of_month(today, 0));
        } else if (status == "Trial") {
          s.end = d.date + days(30);
        }
        if (std::string_view(s.billing_term) == "Annual") {
          auto end = d.date + days(365);
          while (end <= today) end += days(365);
          s.commitment_end = end;
        }
        s.updated = at(updated, rnd.between(0, 24 * 60 - 1));
        if (std::string_view(product.vendor_name) == "Microsoft") s.vendor_subscription_id = upper(rnd.uuid());
        if (is_ghost)
          gone = out.subscriptions.size();
        else
          out.live.push_back(out.subscriptions.size());
        order.line_items.push_back({.id = rnd.uuid(),
                                    .subscription = out.subscriptions.size(),
                                    .line_item_number = static_cast<int>(order.line_items.size()) + 1});
        out.subscriptions.push_back(std::move(s));
      }
      out.orders.push_back(std::move(order));
    }

    // Invoices, newest first: an item per subscription billed in the month (trials are free);
    // the gone one only on the oldest.
    for (int m = 0; m < months; ++m) {
      const sys_days first = first_of_month(today, newest_back + m), last = last_of_month(first);
      Invoice invoice{.id = rnd.uuid(),
                      .company_id = company.id,
                      .period = first,
                      .invoice_date = first + days(3),
                      .due_date = first + days(33),
                      .paid_date = std::nullopt,
                      .status = "Unpaid",
                      .total = 0,
                      .balance = 0};
      const auto index = out.invoices.size();
      for (auto k = mine; k < out.subscriptions.size(); ++k) {
        const auto& s = out.subscriptions[k];
        if (std::string_view(s.status) == "Trial" || s.start > last || (s.end && *s.end < first)) continue;
        if (k == gone && m != months - 1) continue;
        InvoiceItem item{.id = rnd.uuid(), .invoice = index, .subscription = k};
        if (item_counter++ % 15 == 7) {  // an item Pax8 sends without its product's name
          item.unnamed = true;
          item.bare = unnamed++ % 3 == 2;
        }
        invoice.total = round2(invoice.total + round2(s.price * s.quantity));
        out.invoice_items.push_back(std::move(item));
      }
      if (invoice.due_date < today) {
        invoice.status = "Paid";
        invoice.paid_date = first + days(rnd.between(8, 30));
      } else {
        invoice.balance = invoice.total;
      }
      out.invoices.push_back(std::move(invoice));
    }
  }
  return out;
}

}  // namespace sandbox::pax8
