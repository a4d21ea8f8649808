// The Duo fake's state, the gate every API call passes (signature, faults, a failing account) and the
// Accounts and Admin API routes (duo_fake.hpp lists them).
#include "sandbox/duo_fake.hpp"
#include "core/util/digest.hpp"

#include "core/async/sleep.hpp"
#include "core/http/query.hpp"
#include "core/util/strings.hpp"
#include "sandbox/duo_signing.hpp"

#include <algorithm>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

constexpr std::string_view kPrefix = "/duo";
constexpr std::int64_t kDefaultLimit = 100;
constexpr std::int64_t kMaxLimit = 300;

// Duo's error body {stat: "FAIL", code, message[, message_detail]}.
Response fail(int status, int code, std::string message, std::string detail = {}) {
  json body = {{"stat", "FAIL"}, {"code", code}, {"message", std::move(message)}};
  if (!detail.empty()) body["message_detail"] = std::move(detail);
  return Response::json(body, static_cast<core::http::Status>(status));
}

// The body Duo answers a failing status with: the status's code (status × 100 + 1) and message,
// the message as `said` makes it (the echo switch: DuoFake::echoed).
template <class Said>
Response fail_with_status(int status, Said said) {
  switch (status) {
    case 400:
      return fail(400, 40002, said("Invalid request parameters"));
    case 401:
      return fail(401, 40103, said("Invalid signature in request credentials"));
    case 403:
      return fail(403, 40301, said("Access forbidden"));
    case 404:
      return fail(404, 40401, said("Resource not found"));
    case 429:
      return fail(429, 42901, said("Too Many Requests"));
    case 500:
      return fail(500, 50001, said("Unknown internal server error"));
    case 503:
      return fail(503, 50301, said("Service Unavailable"));
    default:
      return fail(status, status * 100 + 1, said(status >= 500 ? "Unknown internal server error" : "Request failed"));
  }
}

Response invalid_parameter(const char* name) { return fail(400, 40002, "Invalid request parameters", name); }

}  // namespace

DuoFake::DuoFake(DuoFakeOptions options)
    : options_(std::move(options)), ikey_(options_.ikey), skey_(options_.skey), max_skew_(options_.max_clock_skew) {}

void DuoFake::install(core::http::Router& router) {
  install_api(router);      // below
  install_control(router);  // duo_fake_control.cpp
}

void DuoFake::reset() {
  std::lock_guard lock(mutex_);
  ikey_ = options_.ikey;
  skey_ = options_.skey;
  accounts_.clear();
  failing_.clear();
  faults_ = {};
  pinned_now_.reset();
  max_skew_ = options_.max_clock_skew;
  versions_ = {2, 5};
  requests_ = missing_credentials_ = unknown_ikey_ = bad_signature_ = bad_timestamp_ = 0;
  signature_versions_.clear();
  per_account_.clear();
  throttled_ = server_errors_ = failed_account_calls_ = 0;
  most_in_flight_ = 0;
  serving_ = {};
  echoes_.clear();
}

void DuoFake::seed(const DuoFakeSeedOptions& options) {
  // Midnight today: the same options give the same users all day.
  const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  auto accounts = duo::seed_accounts(options, std::chrono::sys_seconds(today));
  {
    std::lock_guard lock(mutex_);
    std::swap(accounts_, accounts);
    failing_.clear();
  }
  // The accounts replaced are freed here, outside the lock.
}

void DuoFake::set_faults(DuoFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

bool DuoFake::set_account_failing(const std::string& account_id, int status) {
  std::lock_guard lock(mutex_);
  const bool known = std::any_of(accounts_.begin(), accounts_.end(),
                                 [&](const duo::Account& a) { return a.account_id == account_id; });
  if (!known) return false;
  if (status == 0)
    failing_.erase(account_id);
  else
    failing_[account_id] = status;
  return true;
}

void DuoFake::set_clock(std::optional<std::chrono::sys_seconds> now) {
  std::lock_guard lock(mutex_);
  pinned_now_ = now;
}

void DuoFake::set_max_clock_skew(std::chrono::seconds skew) {
  std::lock_guard lock(mutex_);
  max_skew_ = skew;
}

void DuoFake::set_integration(std::string ikey, std::string skey) {
  std::lock_guard lock(mutex_);
  ikey_ = std::move(ikey);
  skey_ = std::move(skey);
}

void DuoFake::set_signature_versions(std::set<int> versions) {
  std::lock_guard lock(mutex_);
  versions_ = std::move(versions);
}

std::chrono::sys_seconds DuoFake::clock() const {
  return pinned_now_ ? *pinned_now_ : std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

json DuoFake::stats() const {
  std::lock_guard lock(mutex_);
  json versions = json::object();
  for (const auto& [v, n] : signature_versions_) versions[std::to_string(v)] = n;
  json per_account = json::object();
  for (const auto& [id, n] : per_account_) per_account[id] = n;
  std::size_t users = 0;
  for (const auto& a : accounts_) users += a.users.size();
  return {{"requests", requests_},
          {"unauthorized",
           {{"missing_credentials", missing_credentials_},
            {"unknown_ikey", unknown_ikey_},
            {"bad_signature", bad_signature_},
            {"bad_timestamp", bad_timestamp_}}},
          {"signature_failures", missing_credentials_ + unknown_ikey_ + bad_signature_ + bad_timestamp_},
          {"signature_versions", versions},
          {"per_account", per_account},
          {"throttled", throttled_},
          {"server_errors", server_errors_},
          {"failed_account_calls", failed_account_calls_},
          {"in_flight", in_flight_},
          {"most_in_flight", most_in_flight_},
          {"serving_ms", std::chrono::duration<double, std::milli>(serving_).count()},
          {"echoed", echoes_.count()},
          {"rows", {{"accounts", accounts_.size()}, {"users", users}}}};
}

json DuoFake::accounts() const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  for (const auto& a : accounts_) {
    std::map<std::string, int> by_status;
    for (const auto& u : a.users) ++by_status[u.status];
    const auto failing = failing_.find(a.account_id);
    out.push_back({{"account_id", a.account_id},
                   {"name", a.name},
                   {"parent", a.parent},
                   {"users", a.users.size()},
                   {"bypass", by_status["bypass"]},
                   {"disabled", by_status["disabled"]},
                   {"locked_out", by_status["locked out"]},
                   {"pending_deletion", by_status["pending deletion"]},
                   {"failing", failing == failing_.end() ? 0 : failing->second}});
  }
  return out;
}

// --- the gate ---

std::string DuoFake::echoed(const Request& req, std::string message) {
  EchoSwitch echo;
  {
    std::lock_guard lock(mutex_);
    echo = faults_.echo;
  }
  const auto header = core::trim(req.header("Authorization"));
  return echoes_.message(echo, std::move(message),
                         {{"Authorization", std::string(header.size() > 6 ? core::trim(header.substr(6)) : "")}});
}

DuoFake::Verdict DuoFake::verify(const Request& req) {
  const auto refuse = [&](std::int64_t& counter, int code, const char* message) {
    std::string said = echoed(req, message);
    std::lock_guard lock(mutex_);
    ++counter;
    return Verdict{fail(401, code, std::move(said)), 0};
  };
  const auto header = core::trim(req.header("Authorization"));
  if (header.size() < 7 || !core::starts_with_icase(header, "basic "))
    return refuse(missing_credentials_, 40101, "Missing request credentials");
  const auto decoded = duo::base64_decode(core::trim(header.substr(6)));
  const auto colon = decoded ? decoded->find(':') : std::string::npos;
  if (colon == std::string::npos) return refuse(bad_signature_, 40103, "Invalid signature in request credentials");
  const std::string ikey = decoded->substr(0, colon), signature = decoded->substr(colon + 1);
  std::string skey;
  {
    std::lock_guard lock(mutex_);
    if (ikey == ikey_) skey = skey_;
  }
  if (skey.empty()) return refuse(unknown_ikey_, 40102, "Invalid integration key in request credentials");

  // The date line: X-Duo-Date when sent (duo_hmac_python), else Date (duo_client_python).
  const auto x_duo_date = req.headers.find("X-Duo-Date");
  const std::string date(x_duo_date != req.headers.end() ? x_duo_date->value() : req.header("Date"));
  if (core::trim(date).empty()) return refuse(bad_timestamp_, 40105, "Missing request timestamp");
  const auto when = duo::parse_rfc2822(date);
  std::chrono::sys_seconds now;
  std::chrono::seconds skew;
  std::set<int> versions;
  {
    std::lock_guard lock(mutex_);
    now = clock();
    skew = max_skew_;
    versions = versions_;
  }
  if (!when || *when < now - skew || *when > now + skew) return refuse(bad_timestamp_, 40105, "Bad request timestamp");

  // What the client may have signed: the Host as sent and without its port; the path as sent and
  // without the sandbox's /duo prefix.
  const auto host = core::to_lower(core::trim(req.header("Host")));
  std::vector<std::string> hosts{host};
  if (const auto port = host.rfind(':');
      port != std::string::npos && (host.rfind(']') == std::string::npos || port > host.rfind(']')))
    hosts.push_back(host.substr(0, port));
  std::vector<std::string> paths{req.path};
  if (req.path.rfind(std::string(kPrefix) + "/", 0) == 0) paths.push_back(req.path.substr(kPrefix.size()));

  const duo::Params query(req.query.items().begin(), req.query.items().end());
  std::vector<std::pair<std::string, std::string>> x_duo;
  for (const auto& field : req.headers) {
    const std::string name(field.name_string());
    if (core::starts_with_icase(name, "x-duo-")) x_duo.emplace_back(name, std::string(field.value()));
  }
  // Version 2 signs a form body's parameters as well (duo_api_golang's SignedCall for POST and PUT).
  duo::Params v2_params = query;
  if (core::starts_with_icase(req.header("Content-Type"), "application/x-www-form-urlencoded"))
    if (const auto form = core::http::parse_query(req.body))
      v2_params.insert(v2_params.end(), form->items().begin(), form->items().end());

  const auto method = req.method_name.empty() ? std::string(core::http::bhttp::to_string(req.method)) : req.method_name;
  for (const int version : {5, 2}) {
    if (!versions.count(version)) continue;
    for (const auto& h : hosts)
      for (const auto& p : paths) {
        const auto canonical = version == 5 ? duo::canonical_v5(date, method, h, p, query, req.body, x_duo)
                                            : duo::canonical_v2(date, method, h, p, v2_params);
        if (core::constant_time_equals(core::hmac_sha512_hex(skey, canonical), signature)) {
          std::lock_guard lock(mutex_);
          ++signature_versions_[version];
          return Verdict{std::nullopt, version};
        }
      }
  }
  return refuse(bad_signature_, 40103, "Invalid signature in request credentials");
}

awaitable<Response> DuoFake::serve(Request& req, bool admin) {
  {
    std::lock_guard lock(mutex_);
    ++requests_;
  }
  auto verdict = verify(req);
  if (verdict.refusal) co_return std::move(*verdict.refusal);

  // The account an Admin API call is for: account_id selects a child, none the parent.
  const std::string account_id(req.query.get("account_id").value_or(""));
  DuoFaults faults;
  int failing = 0;
  bool unknown_account = false;
  {
    std::lock_guard lock(mutex_);
    if (admin && !accounts_.empty()) {
      const auto it = account_id.empty()
                          ? accounts_.begin()
                          : std::find_if(accounts_.begin() + 1, accounts_.end(),
                                         [&](const duo::Account& a) { return a.account_id == account_id; });
      if (it == accounts_.end()) {
        unknown_account = true;
      } else {
        ++per_account_[it->account_id];
        if (const auto f = failing_.find(it->account_id); f != failing_.end()) failing = f->second;
      }
    }
    faults = faults_;
    if (faults_.throttle > 0) {
      --faults_.throttle;
      ++throttled_;
    } else if (faults_.server_errors > 0) {
      --faults_.server_errors;
      ++server_errors_;
    } else if (failing != 0) {
      ++failed_account_calls_;
    }
    most_in_flight_ = std::max(most_in_flight_, ++in_flight_);
  }
  struct Leave {
    DuoFake& fake;
    ~Leave() {
      std::lock_guard lock(fake.mutex_);
      --fake.in_flight_;
    }
  } leave{*this};

  co_await core::async::sleep_for(faults.latency);
  if (faults.throttle > 0) {
    auto res = fail(429, 42901, "Too Many Requests");
    res.headers.set("Retry-After", std::to_string(faults.retry_after));
    co_return res;
  }
  const auto said = [&](const char* message) { return echoed(req, message); };
  if (faults.server_errors > 0) co_return fail_with_status(faults.status, said);
  if (failing != 0) co_return fail_with_status(failing, said);
  if (unknown_account) co_return invalid_parameter("account_id");

  const auto started = std::chrono::steady_clock::now();
  Response res;
  {
    std::lock_guard lock(mutex_);
    if (!admin) {
      res = account_list(req);
    } else if (accounts_.empty()) {
      res = Response::json_text(R"({"stat":"OK","response":[],"metadata":{"total_objects":0}})");
    } else {
      const auto it = account_id.empty() ? accounts_.begin()
                                         : std::find_if(accounts_.begin(), accounts_.end(), [&](const duo::Account& a) {
                                             return a.account_id == account_id;
                                           });
      res = it == accounts_.end() ? invalid_parameter("account_id") : users(req, *it);
    }
    serving_ += std::chrono::steady_clock::now() - started;
  }
  co_return res;
}

// GET /admin/v1/users: one page, as Duo pages (callers hold mutex_).
Response DuoFake::users(const Request& req, const duo::Account& account) {
  std::int64_t limit = kDefaultLimit, offset = 0;
  if (const auto v = req.query.get("limit")) {
    const auto n = core::parse_int64(*v);
    if (!n || *n < 1 || *n > kMaxLimit) return invalid_parameter("limit");
    limit = *n;
  }
  if (const auto v = req.query.get("offset")) {
    const auto n = core::parse_int64(*v);
    if (!n || *n < 0) return invalid_parameter("offset");
    offset = *n;
  }
  std::vector<const duo::User*> rows;
  rows.reserve(account.users.size());
  const auto username = req.query.get("username");
  for (const auto& u : account.users)
    if (!username || u.username == *username) rows.push_back(&u);

  const auto total = static_cast<std::int64_t>(rows.size());
  const auto first = std::min(total, offset), last = std::min(total, offset + limit);
  std::string body = R"({"stat":"OK","response":[)";
  for (auto i = first; i < last; ++i) {
    if (i > first) body += ',';
    body += rows[static_cast<std::size_t>(i)]->json;
  }
  body += R"(],"metadata":{"total_objects":)" + std::to_string(total);
  if (last < total) body += R"(,"next_offset":)" + std::to_string(last);
  if (offset > 0) body += R"(,"prev_offset":)" + std::to_string(std::max<std::int64_t>(0, offset - limit));
  body += "}}";
  return Response::json_text(std::move(body));
}

// POST /accounts/v1/account/list: the parent's children (callers hold mutex_).
Response DuoFake::account_list(const Request& req) {
  // Every account's API hostname is the host the caller reached (duo_fake.hpp).
  const std::string host(core::trim(req.header("Host")));
  json out = json::array();
  for (const auto& a : accounts_)
    if (!a.parent) out.push_back({{"account_id", a.account_id}, {"api_hostname", host}, {"name", a.name}});
  return Response::json({{"stat", "OK"}, {"response", out}});
}

void DuoFake::install_api(core::http::Router& router) {
  const std::string at(kPrefix);
  router.post(at + "/accounts/v1/account/list",
              [this](Request& req) -> awaitable<Response> { co_return co_await serve(req, false); });
  router.get(at + "/admin/v1/users",
             [this](Request& req) -> awaitable<Response> { co_return co_await serve(req, true); });
}

}  // namespace sandbox
