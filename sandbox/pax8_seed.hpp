#pragma once
// A believable Pax8 partner account for the Pax8 fake, from a seeded generator: the same counts,
// seed and `now` give the same rows (ids included). The partner is the PSA fake's MSP, Northwind
// IT Services; its customers are named after the PSA fake's companies (autotask::company_name) so
// that the console's matching of distributor companies to PSA companies meets every case:
//
//   exact       ~1/3  the PSA name as it is
//   normalised  ~1/3  equal once normalised_name() is applied: case, punctuation and a legal suffix
//                     ("Cobalt Logistics Ltd", "COBALT LOGISTICS, INC.", "cobalt logistics")
//   similar     ~1/6  not equal even normalised, but close by trigram similarity: a typo, a word
//                     dropped or added ("Cobalt Logistcs", "Cobalt Logistics Group"), for a review
//   none        ~1/6  no PSA counterpart ("Quillon Robotics")
//
// The categories are dealt exactly in those shares (rounded) and shuffled by the seed; a matched
// company takes a PSA company of its own among 1..psa_companies-1 (0 is the MSP itself) while
// there are enough, then they repeat.
//
// Each company has `subscriptions_per_company` subscriptions of a catalogue of Microsoft 365,
// backup and security products (about 75% Active, the rest Cancelled, PendingCancel and Trial),
// monthly invoices for the last `invoices_per_company` months with an item per subscription billed
// that month (total = price × quantity, costTotal = cost × quantity; about one item in fifteen
// has an empty productName, and a third of those an empty description too), and orders whose
// line items created the subscriptions. About one company in three also has a subscription that no
// longer exists: it is on an order and on the oldest invoice, never in the subscriptions.
#include "core/util/time.hpp"
#include "sandbox/autotask_seed.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

struct Pax8SeedCounts {
  std::uint32_t seed = 1;
  int companies = 40;
  int subscriptions_per_company = 6;
  int invoices_per_company = 3;
  // How many companies the PSA fake has (autotask::SeedCounts::companies), whose names the matched
  // companies take.
  int psa_companies = autotask::SeedCounts{}.companies;
};

namespace pax8 {

enum class Match { exact, normalised, similar, none };
const char* match_name(Match m);  // "exact", "normalised", "similar", "none"

using Minutes = std::chrono::sys_time<std::chrono::minutes>;  // a moment, to the minute
using Day = std::chrono::sys_days;

// The rows hold what is their own and refer to the rest (a subscription's product, an item's invoice
// and subscription) by position, so that a large account is seeded quickly; pax8_rest.hpp renders
// them as Pax8 does.

struct Company {
  std::string id;  // uuid
  std::string name;
  const char* status = "Active";  // Active, Inactive
  std::string external_id;        // empty: null
  Minutes updated;
  Match match = Match::none;  // what the seed meant (not part of Pax8's company)
  std::string psa_name;       // the PSA company it was named after; empty for none
};

struct Product {
  std::string id;
  const char* name;
  const char* vendor_name;
  const char* sku;
  const char* short_description;
  double price = 0;  // a month, per unit
  double cost = 0;
  bool requires_commitment = false;
};

struct Subscription {
  std::string id;
  std::string company_id;
  std::size_t product = 0;  // in Data::products
  int quantity = 1;
  const char* status = "Active";         // Active, Cancelled, PendingCancel, Trial
  const char* billing_term = "Monthly";  // Monthly, Annual, Trial
  double price = 0;
  double partner_cost = 0;
  Day start;
  std::optional<Day> end;
  Minutes created;
  Minutes updated;
  std::optional<Day> commitment_end;   // Annual: the end of the term
  std::string vendor_subscription_id;  // empty: null
};

struct LineItem {
  std::string id;
  std::size_t subscription = 0;  // in Data::subscriptions
  int line_item_number = 1;
};

struct Order {
  std::string id;
  std::string company_id;
  Minutes created;
  const char* ordered_by = "Pax8 Partner";  // Pax8 Partner, Customer
  const char* ordered_by_user_email = "";
  std::vector<LineItem> line_items;
};

struct Invoice {
  std::string id;
  std::string company_id;
  Day period;  // the month billed, its first day
  Day invoice_date;
  Day due_date;
  std::optional<Day> paid_date;
  const char* status = "Unpaid";  // Paid, Unpaid
  double total = 0;
  double balance = 0;
};

// A month of one subscription on an invoice: quantity, price and cost are the subscription's,
// total = price × quantity, costTotal = cost × quantity, the period the invoice's month.
struct InvoiceItem {
  std::string id;
  std::size_t invoice = 0;       // in Data::invoices
  std::size_t subscription = 0;  // in Data::subscriptions
  bool unnamed = false;          // productName empty (then description, else productId, names it)
  bool bare = false;             // description empty too
};

struct Data {
  std::vector<Company> companies;
  std::vector<Product> products;
  std::vector<Subscription> subscriptions;  // every one ever, a company's together; gone ones too
  std::vector<std::size_t> live;            // the subscriptions Pax8 lists, in order
  std::vector<Order> orders;                // a company's together
  std::vector<Invoice> invoices;            // a company's together, newest first
  std::vector<InvoiceItem> invoice_items;   // an invoice's together, in invoice order
};

Data seed_data(const Pax8SeedCounts& counts, core::Timestamp now);

// The console's matching rules (ops_console migration 0012, distributor_normalised_name and
// pg_trgm), for the seed to aim at and tests to check: lowercase, every run of characters other
// than letters and digits a space, trailing legal suffixes (ltd, limited, inc, llc, plc, co, ...)
// dropped, spaces collapsed.
std::string normalised_name(std::string_view name);
// pg_trgm's similarity of two texts: each lowercased word padded ("  w" ... "d "), the share of
// distinct trigrams the two have in common (0..1).
double trigram_similarity(std::string_view a, std::string_view b);

}  // namespace pax8
}  // namespace sandbox
