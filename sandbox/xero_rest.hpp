#pragma once
// Shapes shared by the parts of the Xero fake (xero_fake*.cpp): Xero's error bodies, the kinds of
// row the Accounting API serves, and the forms of its dates.
#include "core/http/message.hpp"
#include "core/util/time.hpp"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox::xero {

// The API's problem body: {"Type": null, "Title", "Status", "Detail", "Instance", "Extensions": {}}.
core::http::Response problem(int status, std::string detail);
// The identity service's: 400 {"error"[, "error_description"]}.
core::http::Response oauth_error(std::string error, std::string description = {});
// The Accounting API's validation answer: 400 {"ErrorNumber", "Type", "Message"}.
core::http::Response api_exception(int number, std::string type, std::string message);

struct Kind {
  std::string name;      // "Invoices", as in the URL and the answer's array
  std::string singular;  // "Invoice", in QueryParseException messages
  std::string id_field;  // "InvoiceID"
  std::set<std::string> fields;
  std::vector<std::string> scopes;  // a token needs one of them
};
// Invoices, Payments or Contacts, by name, case-insensitively; nullptr otherwise.
const Kind* find_kind(std::string_view name);
const std::vector<Kind>& kinds();

// The connections endpoint's dates: "2019-12-07T18:46:19.5165400", UTC without a zone.
std::string connection_time(core::Timestamp t);

}  // namespace sandbox::xero
