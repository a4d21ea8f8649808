// The Mimecast fake's state (rows, tokens, switches, counters), its token endpoint and the gate every API
// call passes: the bearer token, the fault switches and latency, then Mimecast's request envelope.
#include "sandbox/mimecast_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/http/bearer.hpp"
#include "core/util/strings.hpp"
#include "sandbox/mimecast_rest.hpp"

#include <algorithm>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

MimecastFake::MimecastFake(MimecastFakeOptions options)
    : options_(std::move(options)), token_lifetime_(std::max(options_.token_lifetime, 0)) {}

void MimecastFake::install(core::http::Router& router) {
  router.post("/mimecast/oauth/token", [this](Request& req) -> awaitable<Response> { co_return issue_token(req); });
  install_api(router);      // mimecast_fake_api.cpp
  install_control(router);  // mimecast_fake_control.cpp
}

void MimecastFake::reset() {
  std::lock_guard lock(mutex_);
  data_ = {};
  tokens_.clear();
  token_lifetime_ = std::max(options_.token_lifetime, 0);
  admin_ = true;
  faults_ = {};
  calls_.clear();
  requests_ = token_requests_ = tokens_issued_ = refused_tokens_ = unauthorised_ = forbidden_ = throttled_ =
      server_errors_ = released_ = 0;
  most_in_flight_ = 0;
  echoes_.clear();
}

void MimecastFake::seed(const MimecastFakeSeedOptions& options) {
  auto data = mimecast::seed_data(options, core::now(), options_.caller_email);
  std::lock_guard lock(mutex_);
  std::swap(data_, data);
}

void MimecastFake::set_faults(MimecastFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = std::move(faults);
}

void MimecastFake::set_admin(bool admin) {
  std::lock_guard lock(mutex_);
  admin_ = admin;
}

void MimecastFake::set_token_lifetime(int seconds) {
  std::lock_guard lock(mutex_);
  token_lifetime_ = std::max(seconds, 0);
}

void MimecastFake::revoke_tokens() {
  std::lock_guard lock(mutex_);
  tokens_.clear();
}

std::string MimecastFake::next_id(const char* prefix) {
  // Opaque like Mimecast's ids, unique within the fake.
  return std::string(prefix) + core::random_base64url(24) + std::to_string(next_id_++);
}

std::string MimecastFake::add_held(mimecast::Held held) {
  std::lock_guard lock(mutex_);
  if (held.id.empty()) held.id = next_id("eNoH");
  if (held.received == core::Timestamp{}) held.received = core::now();
  auto& rows = data_.held;
  const auto at =
      std::find_if(rows.begin(), rows.end(), [&](const mimecast::Held& h) { return h.received <= held.received; });
  const auto id = held.id;
  rows.insert(at, std::move(held));
  return id;
}

std::string MimecastFake::add_tracked(mimecast::Tracked email) {
  std::lock_guard lock(mutex_);
  if (email.id.empty()) email.id = next_id("eNoT");
  if (email.received == core::Timestamp{}) email.received = core::now();
  if (email.message_id.empty())
    email.message_id = "<" + core::random_hex(8) + "@" + email.from.email.substr(email.from.email.find('@') + 1) + ">";
  auto& rows = data_.tracked;
  const auto at =
      std::find_if(rows.begin(), rows.end(), [&](const mimecast::Tracked& t) { return t.received <= email.received; });
  const auto id = email.id;
  rows.insert(at, std::move(email));
  return id;
}

json MimecastFake::held() const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  for (const auto& h : data_.held) {
    auto row = mimecast::render(h);
    row["released"] = h.released;
    out.push_back(std::move(row));
  }
  return out;
}

json MimecastFake::tracked() const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  for (const auto& t : data_.tracked) {
    auto row = mimecast::render(t);
    row["spamScore"] = t.spam_score;
    out.push_back(std::move(row));
  }
  return out;
}

json MimecastFake::counts() const {
  std::lock_guard lock(mutex_);
  return mimecast::count_events(data_.events, data_.users);
}

json MimecastFake::stats() const {
  std::lock_guard lock(mutex_);
  json calls = json::object();
  for (const auto& [path, n] : calls_) calls[path] = n;
  const auto held_now =
      std::count_if(data_.held.begin(), data_.held.end(), [](const mimecast::Held& h) { return !h.released; });
  return {{"requests", requests_},
          {"token_requests", token_requests_},
          {"tokens_issued", tokens_issued_},
          {"refused_tokens", refused_tokens_},
          {"unauthorized", unauthorised_},
          {"forbidden", forbidden_},
          {"throttled", throttled_},
          {"server_errors", server_errors_},
          {"released", released_},
          {"in_flight", in_flight_},
          {"most_in_flight", most_in_flight_},
          {"admin", admin_},
          {"token_lifetime", token_lifetime_},
          {"echoed", echoes_.count()},
          {"calls", calls},
          {"rows",
           {{"held", data_.held.size()},
            {"held_now", held_now},
            {"tracked", data_.tracked.size()},
            {"events", data_.events.size()},
            {"users", data_.users.size()}}}};
}

// --- the token ---

Response MimecastFake::issue_token(const Request& req) {
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    ++token_requests_;
  }
  const auto form = mimecast::parse_form(req.body);
  const auto field = [&](const char* name) {
    const auto it = form.find(name);
    return it == form.end() ? std::string() : it->second;
  };
  const auto refuse = [&](Status status, const char* code, const char* message) {
    EchoSwitch echo;
    {
      std::lock_guard lock(mutex_);
      ++refused_tokens_;
      echo = faults_.echo;
    }
    return mimecast::gateway_error(status, code,
                                   echoes_.message(echo, message, {{"client_secret", field("client_secret")}}));
  };
  if (field("grant_type").empty() || field("client_id").empty() || field("client_secret").empty())
    return refuse(Status::bad_request, "invalid_request",
                  "The request must be a form with grant_type, client_id and client_secret.");
  if (field("grant_type") != "client_credentials")
    return refuse(Status::bad_request, "unsupported_grant_type", "Only the client_credentials grant is supported.");
  const auto other = options_.other_clients.find(field("client_id"));
  const std::string* secret = field("client_id") == options_.client_id ? &options_.client_secret
                              : other != options_.other_clients.end()  ? &other->second
                                                                       : nullptr;
  if (!secret || !core::constant_time_equals(field("client_secret"), *secret))
    return refuse(Status::unauthorized, "invalid_client", "Client authentication failed: invalid client credentials.");

  std::string token = core::random_base64url(36);
  int lifetime = 0;
  {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    std::erase_if(tokens_, [&](const auto& t) { return t.second.expiry <= now; });
    lifetime = token_lifetime_;
    tokens_[token] = {now + std::chrono::seconds(lifetime), field("client_id")};
    ++tokens_issued_;
  }
  return Response::json({{"access_token", token}, {"token_type", "Bearer"}, {"expires_in", lifetime}});
}

// --- the gate ---

const MimecastFake::Issued* MimecastFake::authorised(const Request& req) const {
  const auto token = core::http::bearer_token(req.header("authorization"));
  if (!token) return nullptr;
  const auto it = tokens_.find(std::string(*token));
  return it != tokens_.end() && std::chrono::steady_clock::now() < it->second.expiry ? &it->second : nullptr;
}

awaitable<std::optional<Response>> MimecastFake::gate(Request& req, const std::string& endpoint) {
  MimecastFaults faults;
  bool allowed = false, throttle = false, fail = false, slow = false;
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    ++calls_[endpoint];
    faults.echo = faults_.echo;
    const Issued* issued = authorised(req);
    allowed = issued != nullptr;
    if (!allowed) {
      ++unauthorised_;
    } else {
      faults = faults_;
      const bool applies = (faults_.endpoint.empty() || faults_.endpoint == endpoint) &&
                           (faults_.client_id.empty() || faults_.client_id == issued->client_id);
      if (applies) {
        if (faults_.throttle > 0) {
          --faults_.throttle, throttle = true, ++throttled_;
        } else if (faults_.server_errors > 0) {
          --faults_.server_errors, fail = true, ++server_errors_;
        }
        if (faults_.latency.count() > 0) {
          slow = true;
          if (faults_.latency_calls > 0 && --faults_.latency_calls == 0) faults_.latency = {};
        }
      }
    }
  }
  // With the echo switch, an error quotes the bearer token received (echo.hpp).
  const auto said = [&](std::string message) {
    const auto token = core::http::bearer_token(req.header("authorization"));
    return echoes_.message(faults.echo, std::move(message),
                           {{"Authorization", token ? std::string(*token) : std::string()}});
  };
  if (!allowed) {
    auto res = mimecast::gateway_error(Status::unauthorized, "unauthorized",
                                       said("The access token is missing, invalid or expired."));
    res.headers.set("WWW-Authenticate", "Bearer");
    co_return res;
  }
  if (slow) co_await core::async::sleep_for(faults.latency);
  if (throttle) {
    auto res = mimecast::gateway_error(Status::too_many_requests, "rate_limit_exceeded",
                                       "The rate limit for this resource has been exceeded.");
    res.headers.set("Retry-After", std::to_string(faults.retry_after));
    res.headers.set("X-RateLimit-Limit", "300");
    res.headers.set("X-RateLimit-Remaining", "0");
    res.headers.set("X-RateLimit-Reset", std::to_string(static_cast<std::int64_t>(faults.retry_after) * 1000));
    co_return res;
  }
  if (fail)
    co_return mimecast::gateway_error(
        static_cast<Status>(faults.status), "server_error",
        said(faults.status == 503 ? "The service is temporarily unavailable." : "An internal server error occurred."));
  co_return std::nullopt;
}

awaitable<Response> MimecastFake::serve(Request& req, std::string endpoint, Work work) {
  if (auto refused = co_await gate(req, endpoint)) co_return std::move(*refused);
  struct Leave {
    MimecastFake& fake;
    explicit Leave(MimecastFake& f) : fake(f) {
      std::lock_guard lock(fake.mutex_);
      fake.most_in_flight_ = std::max(fake.most_in_flight_, ++fake.in_flight_);
    }
    ~Leave() {
      std::lock_guard lock(fake.mutex_);
      --fake.in_flight_;
    }
  } leave{*this};

  // The envelope: {meta?, data: [exactly one object]}.
  const auto body =
      json::parse(core::trim(req.body).empty() ? std::string_view("{}") : std::string_view(req.body), nullptr, false);
  if (!body.is_object())
    co_return mimecast::envelope_error(Status::bad_request, "err_request_malformed",
                                       "The request body is not valid JSON.", json::object());
  const auto data = body.find("data");
  if (data == body.end() || !data->is_array() || data->size() != 1 || !(*data)[0].is_object())
    co_return mimecast::envelope_error(Status::bad_request, "err_validation_null",
                                       "data must be a list of exactly one object.", json::object());
  static const json kNoMeta = json::object();
  const auto meta = body.find("meta");
  const json& meta_value = meta != body.end() && meta->is_object() ? *meta : kNoMeta;
  std::lock_guard lock(mutex_);
  co_return work(Call{req, (*data)[0], meta_value});
}

awaitable<Response> MimecastFake::serve_plain(Request& req, std::string endpoint, Plain work) {
  if (auto refused = co_await gate(req, endpoint)) co_return std::move(*refused);
  std::lock_guard lock(mutex_);
  co_return work(req);
}

}  // namespace sandbox
