#include "sandbox/xero_seed.hpp"

#include "sandbox/seed_random.hpp"

#include "core/util/strings.hpp"
#include "sandbox/autotask_seed.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <random>

namespace sandbox::xero {

using nlohmann::json;
using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::sys_days;

namespace {

using Rand = SeedRandom;  // sandbox/seed_random.hpp

// How many customers the PSA sandbox names before it numbers them ("Alder & Finch Law 2").
int psa_names() {
  static const int n = [] {
    int k = 1;
    while (k < 10'000 && autotask::company_name(k + 1) != autotask::company_name(1) + " 2") ++k;
    return k;
  }();
  return n;
}
// Suppliers: name, monthly bill in pounds, what it is for.
struct Supplier {
  const char* name;
  int pounds;
  const char* what;
};
const std::vector<Supplier> kSuppliers{{"Pax8 UK Ltd", 9840, "Microsoft 365 and security licences"},
                                       {"Microsoft Ireland Operations Ltd", 1210, "Azure consumption"},
                                       {"Ingram Micro (UK) Ltd", 4350, "Hardware for customer projects"},
                                       {"BT Business", 389, "Leased line and phones"},
                                       {"Regus Management (UK) Ltd", 2600, "Office rent"},
                                       {"Sophos Ltd", 1720, "Firewall subscriptions"},
                                       {"Dell Technologies UK", 3150, "Laptops for stock"},
                                       {"Datto Europe Ltd", 1480, "Backup appliances and cloud storage"}};
// Customers of one-off projects, not managed (the PSA does not have them).
const std::vector<std::string> kProjectCustomers{
    "Abbey Road Dental Care", "Bramley Orchards",   "Coppergate Solicitors", "Draycott Joinery",  "Eastgate Opticians",
    "Fairview Lettings",      "Glenmoor Golf Club", "Holloway Print & Sign", "Inkwell Publishing"};
const std::vector<std::string> kProjects{
    "Server migration to Azure",      "Office move and cabling", "Wi-Fi survey and install",
    "Microsoft 365 tenant migration", "Laptop refresh",          "Cyber Essentials preparation"};
const std::vector<std::string> kFirstNames{"Olivia", "James", "Amelia", "Noah",   "Isla",  "Jack",
                                           "Ava",    "Harry", "Mia",    "George", "Grace", "Leo"};
const std::vector<std::string> kLastNames{"Smith",  "Jones", "Taylor",   "Brown",  "Williams", "Wilson",
                                          "Davies", "Evans", "Robinson", "Wright", "Patel",    "Hussain"};
const char* const kMonthNames[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr const char* kBankAccountID = "5e0c3b7a-1d24-4f8e-a6b9-7c2d9e4f1a30";

enum class PartyKind { managed, supplier, project };

struct Party {
  std::string id;
  std::string name;
  PartyKind kind;
  int index;  // within its list
};

// One invoice before it is numbered and rendered.
struct Plan {
  std::size_t party;
  bool receivable = true;
  sys_days date, due;
  std::int64_t subtotal = 0;
  std::string status = "AUTHORISED";
  std::string reference, description, number, id, line_id;
  core::Timestamp updated;
  struct Pay {
    sys_days date;
    std::int64_t amount;  // pence; 0: the rest of the invoice
  };
  std::vector<Pay> payments;
};

std::string slug(std::string_view name) {
  std::string out;
  for (const char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string code_of(std::string_view name) {  // "Pax8 UK Ltd" → "PAXU"
  std::string out;
  for (const char c : name)
    if (std::isalpha(static_cast<unsigned char>(c)) && out.size() < 4)
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string date_string(sys_days d) { return core::format_rfc3339(core::Timestamp(d)).substr(0, 19); }

std::string month_label(sys_days d) {
  const std::chrono::year_month_day ymd{d};
  return std::string(kMonthNames[static_cast<unsigned>(ymd.month()) - 1]) + " " +
         std::to_string(static_cast<int>(ymd.year()));
}

json render_contact(const Party& p, Rand& rnd, core::Timestamp updated) {
  const std::string first = kFirstNames[rnd.between(0, static_cast<int>(kFirstNames.size()) - 1)];
  const std::string last = kLastNames[rnd.between(0, static_cast<int>(kLastNames.size()) - 1)];
  return {{"ContactID", p.id},
          {"ContactStatus", "ACTIVE"},
          {"Name", p.name},
          {"FirstName", first},
          {"LastName", last},
          {"EmailAddress", (p.kind == PartyKind::supplier ? "billing@" : "accounts@") + slug(p.name) + ".example"},
          {"BankAccountDetails", ""},
          {"Addresses", json::array()},
          {"Phones", json::array()},
          {"UpdatedDateUTC", json_date(updated)},
          {"ContactGroups", json::array()},
          {"IsSupplier", p.kind == PartyKind::supplier},
          {"IsCustomer", p.kind != PartyKind::supplier},
          {"DefaultCurrency", "GBP"},
          {"ContactPersons", json::array()},
          {"HasAttachments", false},
          {"HasValidationErrors", false}};
}

json render_invoice(const Plan& p, const Party& party) {
  const std::int64_t tax = (p.subtotal * 20 + 50) / 100;
  const std::int64_t total = p.subtotal + tax;
  const bool approved = p.status != "DRAFT" && p.status != "SUBMITTED";
  json lines = json::array();
  lines.push_back({{"LineItemID", p.line_id},
                   {"Description", p.description},
                   {"Quantity", 1.0},
                   {"UnitAmount", money(p.subtotal)},
                   {"TaxType", p.receivable ? "OUTPUT2" : "INPUT2"},
                   {"TaxAmount", money(tax)},
                   {"LineAmount", money(p.subtotal)},
                   {"AccountCode", p.receivable ? "200" : "429"},
                   {"Tracking", json::array()}});
  return {{"Type", p.receivable ? "ACCREC" : "ACCPAY"},
          {"InvoiceID", p.id},
          {"InvoiceNumber", p.number},
          {"Reference", p.reference},
          {"Payments", json::array()},
          {"CreditNotes", json::array()},
          {"Prepayments", json::array()},
          {"Overpayments", json::array()},
          {"AmountDue", money(p.status == "VOIDED" ? 0 : total)},
          {"AmountPaid", 0.0},
          {"AmountCredited", 0.0},
          {"SentToContact", approved && p.receivable},
          {"CurrencyRate", 1.0},
          {"IsDiscounted", false},
          {"HasAttachments", false},
          {"HasErrors", false},
          {"Contact", {{"ContactID", party.id}, {"Name", party.name}}},
          {"DateString", date_string(p.date)},
          {"Date", json_date(core::Timestamp(p.date))},
          {"DueDateString", date_string(p.due)},
          {"DueDate", json_date(core::Timestamp(p.due))},
          {"Status", p.status},
          {"LineAmountTypes", "Exclusive"},
          {"LineItems", lines},
          {"SubTotal", money(p.subtotal)},
          {"TotalTax", money(tax)},
          {"Total", money(total)},
          {"UpdatedDateUTC", json_date(p.updated)},
          {"CurrencyCode", "GBP"}};
}

}  // namespace

std::int64_t to_ms(core::Timestamp t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::string json_date_ms(std::int64_t ms) { return "/Date(" + std::to_string(ms) + "+0000)/"; }

std::string json_date(core::Timestamp t) { return json_date_ms(to_ms(t)); }

std::optional<std::int64_t> parse_json_date(std::string_view text) {
  if (!text.starts_with("/Date(") || !text.ends_with(")/")) return std::nullopt;
  std::string_view inner = text.substr(6, text.size() - 8);
  const auto sign = inner.find_first_of("+-", 1);
  if (sign != std::string_view::npos) {
    const auto offset = inner.substr(sign + 1);
    if (offset.size() != 4 || !std::all_of(offset.begin(), offset.end(), [](char c) { return std::isdigit(c); }))
      return std::nullopt;
    inner = inner.substr(0, sign);
  }
  return core::parse_int64(inner);
}

double money(std::int64_t pence) { return static_cast<double>(pence) / 100.0; }

std::int64_t pence(const json& amount) { return amount.is_number() ? std::llround(amount.get<double>() * 100.0) : 0; }

json make_payment(const json& invoice, std::string id, core::Timestamp date, std::int64_t amount,
                  core::Timestamp updated, bool reconciled) {
  const bool receivable = invoice.value("Type", "ACCREC") == "ACCREC";
  return {{"PaymentID", std::move(id)},
          {"Date", json_date(date)},
          {"BankAmount", money(amount)},
          {"Amount", money(amount)},
          {"Reference",
           receivable ? "BACS " + invoice.value("InvoiceNumber", "") : "DD " + invoice.value("InvoiceNumber", "")},
          {"CurrencyRate", 1.0},
          {"PaymentType", receivable ? "ACCRECPAYMENT" : "ACCPAYPAYMENT"},
          {"Status", "AUTHORISED"},
          {"UpdatedDateUTC", json_date(updated)},
          {"HasAccount", true},
          {"IsReconciled", reconciled},
          {"Account", {{"AccountID", kBankAccountID}, {"Code", "090"}}},
          {"Invoice",
           {{"Type", invoice.value("Type", "ACCREC")},
            {"InvoiceID", invoice.value("InvoiceID", "")},
            {"InvoiceNumber", invoice.value("InvoiceNumber", "")},
            {"Contact", invoice.value("Contact", json::object())},
            {"CurrencyCode", invoice.value("CurrencyCode", "GBP")}}},
          {"HasValidationErrors", false}};
}

void apply_payment(json& invoice, const json& payment) {
  invoice["Payments"].push_back({{"PaymentID", payment["PaymentID"]},
                                 {"Date", payment["Date"]},
                                 {"Amount", payment["Amount"]},
                                 {"Reference", payment["Reference"]},
                                 {"CurrencyRate", 1.0},
                                 {"HasAccount", true},
                                 {"HasValidationErrors", false}});
  const std::int64_t paid = pence(invoice["AmountPaid"]) + pence(payment["Amount"]);
  const std::int64_t due = std::max<std::int64_t>(0, pence(invoice["Total"]) - paid);
  invoice["AmountPaid"] = money(paid);
  invoice["AmountDue"] = money(due);
  if (due == 0) {
    invoice["Status"] = "PAID";
    invoice["FullyPaidOnDate"] = payment["Date"];
  }
  const auto was = parse_json_date(invoice.value("UpdatedDateUTC", ""));
  const auto now = parse_json_date(payment.value("UpdatedDateUTC", ""));
  if (now && (!was || *now > *was)) invoice["UpdatedDateUTC"] = payment["UpdatedDateUTC"];
}

Books seed_books(const SeedOptions& options, core::Timestamp now) {
  Rand rnd(options.seed);
  Books out;
  const sys_days today = std::chrono::floor<days>(now);
  const core::Timestamp latest = now - minutes(10);  // nothing seeded is newer than this
  const auto cap = [&](core::Timestamp t) { return std::min(t, latest); };
  const std::chrono::year_month_day ymd{today};
  const std::chrono::year_month this_month{ymd.year(), ymd.month()};
  const auto first_of = [&](int months_ago) { return sys_days{(this_month - std::chrono::months(months_ago)) / 1}; };
  const int months = std::max(1, options.months);

  // --- Contacts ---
  std::vector<Party> parties;
  for (int i = 0; i < options.contacts; ++i) {
    const int managed = psa_names(), suppliers = static_cast<int>(kSuppliers.size()),
              projects = static_cast<int>(kProjectCustomers.size());
    Party p{.id = rnd.uuid(), .name = {}, .kind = PartyKind::managed, .index = i};
    if (i >= managed && i < managed + suppliers) {
      p.kind = PartyKind::supplier, p.index = i - managed, p.name = kSuppliers[p.index].name;
    } else if (i >= managed + suppliers && i < managed + suppliers + projects) {
      p.kind = PartyKind::project, p.index = i - managed - suppliers, p.name = kProjectCustomers[p.index];
    } else {
      if (i >= managed) p.index = i - suppliers - projects;  // more managed customers, numbered as the PSA's
      p.name = autotask::company_name(p.index + 1) + (p.index % 5 == 2 ? " Ltd" : "");
    }
    const auto created = now - std::chrono::duration_cast<core::Timestamp::duration>(days(365 * 6) * rnd.unit());
    out.contacts.push_back(render_contact(
        p, rnd, cap(created + std::chrono::duration_cast<core::Timestamp::duration>((latest - created) * rnd.unit()))));
    parties.push_back(std::move(p));
  }

  // --- Invoice plans ---
  std::vector<Plan> plans;
  const auto approved_at = [&](sys_days d) { return core::Timestamp(d) + hours(rnd.between(9, 17)); };
  for (std::size_t c = 0; c < parties.size(); ++c) {
    const Party& party = parties[c];
    const int i = party.index;
    if (party.kind == PartyKind::managed) {
      const std::int64_t fee = rnd.between(35, 650) * 1000;  // £350..£6,500 a month
      const int terms = i % 3 == 0 ? 14 : 30;
      const int profile = i % 10;  // 3: late, 6: last three unpaid, 8: pays half, 9: last six unpaid
      const bool left = i % 13 == 4 && months >= 6;
      const int last = left ? months / 3 : 0;  // months ago of the last invoice
      for (int k = months - 1; k >= last; --k) {
        Plan p{.party = c};
        p.date = first_of(k);
        p.due = p.date + days(terms);
        p.subtotal = fee + (rnd.chance(0.3) ? rnd.between(1, 12) * 8500 : 0);  // extra hours at £85
        p.reference = "Managed services " + month_label(p.date);
        p.description = "Managed IT services, " + month_label(p.date) + (p.subtotal > fee ? ", with extra hours" : "");
        p.id = rnd.uuid(), p.line_id = rnd.uuid();
        p.updated = cap(approved_at(p.date));
        if (k == 0 && !left) {  // this month's
          p.status = i % 3 == 1 ? "DRAFT" : i % 7 == 2 ? "SUBMITTED" : "AUTHORISED";
        } else if (rnd.chance(0.03)) {
          p.status = "VOIDED";
          p.updated = cap(core::Timestamp(p.date + days(rnd.between(1, 20))) + hours(rnd.between(9, 17)));
        } else {
          std::optional<sys_days> pay;
          std::int64_t part = 0;
          switch (profile) {
            case 3:
              pay = p.due + days(rnd.between(15, 45));
              break;
            case 6:
              if (k > 3) pay = p.due + days(rnd.between(5, 25));
              break;
            case 8:
              pay = p.due + days(rnd.between(0, 10));
              if (k <= 2) part = (p.subtotal * 6 / 10) / 100 * 100;  // about half of the total, in pounds
              break;
            case 9:
              if (k > 6) pay = p.due + days(rnd.between(0, 20));
              break;
            default:
              pay = p.due + days(rnd.between(-7, 5));
          }
          if (left && k == last) pay.reset();
          // A quarter of the prompt payers settled last month's invoice this month.
          if (k == 1 && i % 4 == 0 && profile != 3 && profile != 6 && profile != 8 && profile != 9)
            pay = first_of(0) + days(rnd.between(0, static_cast<int>((today - first_of(0)).count())));
          if (pay && *pay <= today) p.payments.push_back({.date = std::max(*pay, p.date), .amount = part});
        }
        plans.push_back(std::move(p));
      }
    } else if (party.kind == PartyKind::project) {
      const int n = rnd.between(1, 3);
      for (int j = 0; j < n; ++j) {
        Plan p{.party = c};
        p.date = today - days(rnd.between(3, std::max(3, months * 30 - 1)));
        p.due = p.date + days(30);
        p.subtotal = rnd.between(16, 240) * 5000;  // £800..£12,000
        const std::string project = kProjects[rnd.between(0, static_cast<int>(kProjects.size()) - 1)];
        p.reference = "Project: " + project;
        p.description = project;
        p.id = rnd.uuid(), p.line_id = rnd.uuid();
        p.updated = cap(approved_at(p.date));
        const sys_days pay = p.due + days(rnd.between(-10, 10));
        if (!(i % 3 == 1 && j == n - 1) && pay <= today) p.payments.push_back({.date = pay, .amount = 0});
        plans.push_back(std::move(p));
      }
    } else {  // a supplier's bills, the last three months
      const auto& supplier = kSuppliers[i];
      const int n = rnd.between(1, 3);
      for (int k = std::min(n, months) - 1; k >= 0; --k) {
        Plan p{.party = c, .receivable = false};
        p.date = std::min(today, first_of(k) + days(2));
        p.due = p.date + days(20);
        p.subtotal = (supplier.pounds * 100) * rnd.between(90, 110) / 100;
        p.reference = supplier.what;
        p.description = std::string(supplier.what) + ", " + month_label(p.date);
        p.number = code_of(supplier.name) + "-" + date_string(p.date).substr(2, 2) + date_string(p.date).substr(5, 2) +
                   "-" + std::to_string(rnd.between(1000, 9999));
        p.id = rnd.uuid(), p.line_id = rnd.uuid();
        p.updated = cap(approved_at(p.date));
        if (p.due <= today) p.payments.push_back({.date = p.due, .amount = 0});
        plans.push_back(std::move(p));
      }
    }
  }

  // Receivables are numbered in date order, as Xero numbers them when they are raised.
  std::vector<Plan*> receivable;
  for (auto& p : plans)
    if (p.receivable) receivable.push_back(&p);
  std::stable_sort(receivable.begin(), receivable.end(),
                   [](const Plan* a, const Plan* b) { return a->date < b->date; });
  for (std::size_t n = 0; n < receivable.size(); ++n) {
    char number[16];
    std::snprintf(number, sizeof number, "INV-%04zu", n + 1);
    receivable[n]->number = number;
  }

  // --- Render, with the payments ---
  std::stable_sort(plans.begin(), plans.end(), [](const Plan& a, const Plan& b) { return a.date < b.date; });
  for (const auto& p : plans) {
    json invoice = render_invoice(p, parties[p.party]);
    for (const auto& pay : p.payments) {
      const std::int64_t amount = pay.amount > 0 ? pay.amount : pence(invoice["AmountDue"]);
      const auto at = cap(core::Timestamp(pay.date) + hours(rnd.between(8, 18)));
      json payment =
          make_payment(invoice, rnd.uuid(), core::Timestamp(pay.date), amount, at, pay.date < today - days(5));
      apply_payment(invoice, payment);
      out.payments.push_back(std::move(payment));
    }
    out.invoices.push_back(std::move(invoice));
  }
  std::stable_sort(out.payments.begin(), out.payments.end(), [](const json& a, const json& b) {
    return parse_json_date(a["Date"].get<std::string>()) < parse_json_date(b["Date"].get<std::string>());
  });
  return out;
}

}  // namespace sandbox::xero
