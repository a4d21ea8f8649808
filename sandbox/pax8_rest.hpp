#pragma once
// Shapes shared by the parts of the Pax8 fake (pax8_fake*.cpp): Pax8's error body and the rows
// as its API renders them.
#include "core/http/message.hpp"
#include "sandbox/pax8_seed.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace sandbox::pax8 {

// {type, message, instance, status, details: []} (devx.pax8.com/docs/errors); type from the status
// (BAD_REQUEST, UNAUTHORIZED, NOT_FOUND, TOO_MANY_REQUESTS, INTERNAL_SERVER_ERROR, ...), instance the
// path called as Pax8 names it ("/v1/companies/...").
core::http::Response error(int status, std::string message, const core::http::Request& req);

// Appends the row as Pax8's API renders it, as JSON text (a page is its rows' text joined); what
// it refers to by position is read from `d`.
void append(std::string& out, const Data& d, const Company& c);
void append(std::string& out, const Data& d, const Product& p);
void append(std::string& out, const Data& d, const Subscription& s);
void append(std::string& out, const Data& d, const Order& o);
void append(std::string& out, const Data& d, const Invoice& i);
void append(std::string& out, const Data& d, const InvoiceItem& i);

// The same row as a JSON value (control routes, tests).
template <class Row>
nlohmann::json render(const Data& d, const Row& row) {
  std::string text;
  append(text, d, row);
  return nlohmann::json::parse(text);
}

}  // namespace sandbox::pax8
