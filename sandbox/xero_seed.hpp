#pragma once
// A believable set of books for the Xero fake's organisation (the MSP, "Northwind IT Services"), from
// a seeded generator: the same options and `now` give the same rows.
//
// Contacts, in this order: the MSP's managed customers, named as the PSA sandbox's companies
// (autotask::company_name(1...)), every fifth with a legal suffix the PSA does not have ("Cobalt
// Logistics Ltd"); its suppliers (Pax8, Microsoft, BT...); customers of one-off projects the PSA does
// not know; then more managed customers, numbered as the PSA numbers them ("Alder & Finch Law 2").
//
// Invoices, in Xero's JSON shape (rendered as the Accounting API answers them, dates "/Date(ms+0000)/"):
//   - a receivable (ACCREC) on the 1st of every month of the last `months` months per managed
//     customer, GBP, VAT 20% exclusive, due after 14 or 30 days; this month's is DRAFT for a third of
//     them (AmountDue = Total, as Xero shows drafts), SUBMITTED for a few, AUTHORISED otherwise;
//   - most earlier ones PAID (a payment near the due date); by customer: some pay late, some have left
//     their last three unpaid (overdue 1–90 days), some their last six (91–120 and >120 days), some
//     pay half (AUTHORISED, AmountPaid > 0, AmountDue > 0); a customer who left stopped being invoiced
//     a third of the way back with the last invoice unpaid; about 3% VOIDED;
//   - a quarter of the customers paid last month's invoice this month, so month-to-date receipts are
//     never empty (payments spread over this year and last);
//   - one to three project invoices per project customer, one of them left unpaid for some;
//   - a few payable (ACCPAY) bills from the suppliers for the last three months, paid when due.
// Payments: one per payment of each invoice (ACCRECPAYMENT / ACCPAYPAYMENT), each invoice's Payments,
// AmountPaid, AmountDue, Status and FullyPaidOnDate agreeing with them. UpdatedDateUTC: spread over
// the period (approval, payment, void), never later than ten minutes before `now`, so that an
// If-Modified-Since of a few minutes ago finds only what changed since the seed.
#include "core/util/time.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox::xero {

struct SeedOptions {
  std::uint32_t seed = 1;
  int contacts = 60;
  int months = 18;  // of monthly invoices, this month included
};

struct Books {
  std::vector<nlohmann::json> contacts;
  std::vector<nlohmann::json> invoices;
  std::vector<nlohmann::json> payments;
};

Books seed_books(const SeedOptions& options, core::Timestamp now);

// Xero's JSON date: "/Date(1539993600000+0000)/", milliseconds since the epoch, UTC.
std::string json_date(core::Timestamp t);
// The same for a moment in milliseconds.
std::string json_date_ms(std::int64_t ms);
// The milliseconds a "/Date(ms)/" or "/Date(ms+hhmm)/" value names (the offset only says where it was
// written; the milliseconds are UTC); nullopt for anything else.
std::optional<std::int64_t> parse_json_date(std::string_view text);
// Milliseconds since the epoch.
std::int64_t to_ms(core::Timestamp t);

// Amounts are kept in pence and written as Xero writes them: a number with two decimals at most.
double money(std::int64_t pence);
std::int64_t pence(const nlohmann::json& amount);

// A payment of `amount` pence against `invoice` (ACCRECPAYMENT for a receivable, ACCPAYPAYMENT for a
// bill), as GET Payments renders it.
nlohmann::json make_payment(const nlohmann::json& invoice, std::string id, core::Timestamp date, std::int64_t amount,
                            core::Timestamp updated, bool reconciled);
// Records `payment` on `invoice`: its Payments, AmountPaid and AmountDue; PAID with FullyPaidOnDate
// when nothing is left; UpdatedDateUTC moves to the payment's when that is later.
void apply_payment(nlohmann::json& invoice, const nlohmann::json& payment);

}  // namespace sandbox::xero
