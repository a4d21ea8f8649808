// The Pax8 fake's state (rows, tokens, counters, switches) and the gate every API call passes:
// the bearer token, latency and faults.
#include "sandbox/pax8_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/util/strings.hpp"
#include "sandbox/pax8_rest.hpp"

#include <algorithm>
#include <stdexcept>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

// The rows at `positions` (all when null), rendered.
template <class T>
json render_all(const pax8::Data& d, const std::vector<T>& rows, const std::vector<std::size_t>* positions = nullptr) {
  json out = json::array();
  if (positions)
    for (const auto i : *positions) out.push_back(pax8::render(d, rows[i]));
  else
    for (const auto& row : rows) out.push_back(pax8::render(d, row));
  return out;
}

}  // namespace

Pax8Fake::Pax8Fake(Pax8FakeOptions options)
    : options_(std::move(options)), token_lifetime_(std::max(options_.token_lifetime, 0)) {}

void Pax8Fake::install(core::http::Router& router) {
  install_api(router);      // pax8_fake_api.cpp
  install_control(router);  // pax8_fake_control.cpp
}

void Pax8Fake::reindex() {
  subscriptions_of_.clear();
  for (const auto i : data_.live) subscriptions_of_[data_.subscriptions[i].company_id].push_back(i);
  orders_of_.clear();
  for (std::size_t i = 0; i < data_.orders.size(); ++i) orders_of_[data_.orders[i].company_id].push_back(i);
  invoices_of_.clear();
  for (std::size_t i = 0; i < data_.invoices.size(); ++i) invoices_of_[data_.invoices[i].company_id].push_back(i);
  items_of_.clear();
  const auto& items = data_.invoice_items;
  for (std::size_t i = 0; i < items.size();) {
    std::size_t j = i;
    while (j < items.size() && items[j].invoice == items[i].invoice) ++j;
    items_of_[data_.invoices[items[i].invoice].id] = {i, j};
    i = j;
  }
}

void Pax8Fake::reset() {
  std::lock_guard lock(mutex_);
  data_ = {};
  reindex();
  tokens_.clear();
  token_lifetime_ = std::max(options_.token_lifetime, 0);
  faults_ = {};
  requests_ = token_requests_ = tokens_issued_ = refused_tokens_ = unauthorised_ = throttled_ = server_errors_ = 0;
  most_in_flight_ = 0;
  serving_ = {};
  echoes_.clear();
}

void Pax8Fake::seed(const Pax8SeedCounts& counts) {
  // Midnight today: the same counts and seed give the same rows all day.
  auto data = pax8::seed_data(counts, std::chrono::floor<std::chrono::days>(core::now()));
  {
    std::lock_guard lock(mutex_);
    std::swap(data_, data);
    reindex();
  }
  // The account replaced is freed here, outside the lock.
}

void Pax8Fake::set_faults(Pax8Faults faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

void Pax8Fake::set_token_lifetime(int seconds) {
  std::lock_guard lock(mutex_);
  token_lifetime_ = std::max(seconds, 0);
}

json Pax8Fake::stats() const {
  std::lock_guard lock(mutex_);
  return {{"requests", requests_},
          {"token_requests", token_requests_},
          {"tokens_issued", tokens_issued_},
          {"refused_tokens", refused_tokens_},
          {"unauthorized", unauthorised_},
          {"throttled", throttled_},
          {"server_errors", server_errors_},
          {"in_flight", in_flight_},
          {"most_in_flight", most_in_flight_},
          {"serving_ms", std::chrono::duration<double, std::milli>(serving_).count()},
          {"token_lifetime", token_lifetime_},
          {"echoed", echoes_.count()},
          {"rows",
           {{"companies", data_.companies.size()},
            {"subscriptions", data_.live.size()},
            {"orders", data_.orders.size()},
            {"invoices", data_.invoices.size()},
            {"invoice_items", data_.invoice_items.size()},
            {"products", data_.products.size()}}}};
}

bool Pax8Fake::remove_company(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto& companies = data_.companies;
  const auto it =
      std::find_if(companies.begin(), companies.end(), [&](const auto& c) { return core::iequals(c.id, id); });
  if (it == companies.end()) return false;
  companies.erase(it);
  // Its subscriptions are gone too (its orders and invoices stay: they are history).
  std::erase_if(data_.live, [&](std::size_t i) { return core::iequals(data_.subscriptions[i].company_id, id); });
  reindex();
  return true;
}

bool Pax8Fake::remove_subscription(const std::string& id) {
  std::lock_guard lock(mutex_);
  if (std::erase_if(data_.live, [&](std::size_t i) { return core::iequals(data_.subscriptions[i].id, id); }) == 0)
    return false;
  reindex();
  return true;
}

json Pax8Fake::rows(const std::string& kind) const {
  std::lock_guard lock(mutex_);
  if (kind == "companies") {
    json out = json::array();
    for (const auto& c : data_.companies) {
      auto row = pax8::render(data_, c);
      row["_sandbox"] = {{"match", pax8::match_name(c.match)},
                         {"psaName", c.psa_name.empty() ? json(nullptr) : json(c.psa_name)}};
      out.push_back(std::move(row));
    }
    return out;
  }
  if (kind == "subscriptions") return render_all(data_, data_.subscriptions, &data_.live);
  if (kind == "orders") return render_all(data_, data_.orders);
  if (kind == "invoices") return render_all(data_, data_.invoices);
  if (kind == "invoice_items") return render_all(data_, data_.invoice_items);
  if (kind == "products") return render_all(data_, data_.products);
  throw std::invalid_argument("unknown kind '" + kind +
                              "': companies, subscriptions, orders, invoices, invoice_items or products");
}

// --- the gate ---

bool Pax8Fake::authorised(const Request& req) const {
  const auto header = core::trim(req.header("Authorization"));
  if (header.size() < 8 || !core::starts_with_icase(header, "bearer ")) return false;
  const std::string token(core::trim(header.substr(7)));
  std::lock_guard lock(mutex_);
  const auto it = tokens_.find(token);
  return it != tokens_.end() && std::chrono::steady_clock::now() < it->second;
}

Response Pax8Fake::issue_token(const Request& req) {
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    ++token_requests_;
  }
  const auto body = json::parse(req.body, nullptr, false);
  const auto text = [&](const char* key) -> std::string {
    const auto it = body.is_object() ? body.find(key) : body.end();
    return body.is_object() && it != body.end() && it->is_string() ? it->get<std::string>() : "";
  };
  const auto refuse = [&](int status, const char* error, std::string description) {
    EchoSwitch echo;
    {
      std::lock_guard lock(mutex_);
      ++refused_tokens_;
      echo = faults_.echo;
    }
    description = echoes_.message(echo, std::move(description), {{"client_secret", text("client_secret")}});
    return Response::json({{"error", error}, {"error_description", std::move(description)}},
                          static_cast<core::http::Status>(status));
  };
  if (!body.is_object()) return refuse(400, "invalid_request", "The request body must be a JSON object.");
  if (text("grant_type") != "client_credentials")
    return refuse(400, "unsupported_grant_type", "Unsupported grant type: " + text("grant_type"));
  if (text("client_id").empty() || text("client_secret").empty())
    return refuse(400, "invalid_request", "Missing required parameter: client_id and client_secret.");
  if (text("client_id") != options_.client_id ||
      !core::constant_time_equals(text("client_secret"), options_.client_secret))
    return refuse(401, "access_denied", "Unauthorized");
  if (text("audience") != options_.audience)
    return refuse(403, "access_denied", "Service not enabled within domain: " + text("audience"));

  std::string token = core::random_base64url(48);
  int lifetime = 0;
  {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    std::erase_if(tokens_, [&](const auto& t) { return t.second <= now; });
    lifetime = token_lifetime_;
    tokens_[token] = now + std::chrono::seconds(lifetime);
    ++tokens_issued_;
  }
  return Response::json({{"access_token", token}, {"expires_in", lifetime}, {"token_type", "Bearer"}});
}

awaitable<Response> Pax8Fake::serve(Request& req, Work work) {
  const bool allowed = authorised(req);
  Pax8Faults faults;
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    faults.echo = faults_.echo;
    if (!allowed) {
      ++unauthorised_;
    } else {
      faults = faults_;
      if (faults_.throttle > 0) {
        --faults_.throttle;
        ++throttled_;
      } else if (faults_.server_errors > 0) {
        --faults_.server_errors;
        ++server_errors_;
      }
      most_in_flight_ = std::max(most_in_flight_, ++in_flight_);
    }
  }
  // With the echo switch, an error quotes the bearer token received (echo.hpp).
  const auto said = [&](std::string message) {
    const auto header = core::trim(req.header("Authorization"));
    return echoes_.message(faults.echo, std::move(message),
                           {{"Authorization", std::string(header.size() > 7 ? header.substr(7) : "")}});
  };
  if (!allowed) {
    auto res = pax8::error(401, said("Full authentication is required to access this resource"), req);
    res.headers.set("WWW-Authenticate", "Bearer");
    co_return res;
  }
  struct Leave {
    Pax8Fake& fake;
    ~Leave() {
      std::lock_guard lock(fake.mutex_);
      --fake.in_flight_;
    }
  } leave{*this};

  co_await core::async::sleep_for(faults.latency);
  if (faults.throttle > 0) {
    auto res = pax8::error(429, "Too many requests: the rate limit has been exceeded. Try again later.", req);
    res.headers.set("Retry-After", std::to_string(faults.retry_after));
    co_return res;
  }
  if (faults.server_errors > 0)
    co_return pax8::error(
        faults.status,
        said(faults.status == 503 ? "The service is temporarily unavailable." : "An unexpected error occurred."), req);
  const auto started = std::chrono::steady_clock::now();
  auto res = work(req);
  const auto took = std::chrono::steady_clock::now() - started;
  {
    std::lock_guard lock(mutex_);
    serving_ += took;
  }
  co_return res;
}

}  // namespace sandbox
