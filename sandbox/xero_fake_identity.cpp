// Xero's identity service: the authorize endpoint (a consent that answers at once), the token
// endpoint (authorization_code with PKCE, refresh_token with rotation and its grace period),
// revocation, and the connections endpoint of the API (xero_fake.hpp has the rules and sources).
#include "sandbox/xero_fake.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "sandbox/xero_rest.hpp"

#include <algorithm>
#include <cctype>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

constexpr std::string_view kIdentity = "/xero/identity/connect";
constexpr const char* kUserId = "b51c2a7e-0f4d-4c38-9e6a-8d2f71c3a604";  // the Xero user who consents
constexpr const char* kSubject = "5d6c0e3fb1a94b2e8f7a6c1d0e9b8a7f";

std::map<std::string, std::string> parse_form(std::string_view body) {
  std::map<std::string, std::string> out;
  for (auto piece : core::split(body, '&')) {
    if (piece.empty()) continue;
    const auto eq = piece.find('=');
    auto key = core::url_decode(piece.substr(0, eq), true);
    auto value = core::url_decode(eq == std::string_view::npos ? "" : piece.substr(eq + 1), true);
    if (key && value) out[*key] = *value;
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view in) {
  std::string out;
  int bits = 0, value = 0;
  for (const char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+' || c == '-')
      v = 62;
    else if (c == '/' || c == '_')
      v = 63;
    else if (c == '=')
      break;
    else
      return std::nullopt;
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((value >> bits) & 0xFF);
    }
  }
  return out;
}

std::string base64url(std::string_view data) {
  std::string out = core::base64(data);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (auto& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

// RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))).
std::string s256(std::string_view verifier) {
  const std::string hex = core::sha256_hex(verifier);
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return base64url(bytes);
}

// A code verifier, or a challenge: 43–128 characters of A-Z a-z 0-9 - . _ ~ (developer.xero.com pkce-flow).
bool pkce_shaped(std::string_view s) {
  return s.size() >= 43 && s.size() <= 128 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~';
         });
}

// A scope Xero's identity service knows: the OpenID ones, offline_access, the accounting scopes (broad
// and granular, developer.xero.com/faq/granular-scopes; reports as accounting.reports[.<report>].read),
// and those of the other API families by their prefix ("payroll.employees", "files"...).
bool known_scope(std::string_view scope) {
  static const std::set<std::string, std::less<>> kExact{"openid",
                                                         "profile",
                                                         "email",
                                                         "offline_access",
                                                         "accounting.transactions",
                                                         "accounting.settings",
                                                         "accounting.contacts",
                                                         "accounting.attachments",
                                                         "accounting.invoices",
                                                         "accounting.payments",
                                                         "accounting.banktransactions",
                                                         "accounting.manualjournals",
                                                         "accounting.classicexpenses",
                                                         "accounting.journals.read",
                                                         "accounting.budgets.read",
                                                         "accounting.reports.read"};
  if (kExact.contains(scope) || (scope.ends_with(".read") && kExact.contains(scope.substr(0, scope.size() - 5))))
    return true;
  const bool lower = std::all_of(scope.begin(), scope.end(),
                                 [](char c) { return std::islower(static_cast<unsigned char>(c)) || c == '.'; });
  if (scope.starts_with("accounting."))
    return lower && scope.starts_with("accounting.reports.") && scope.ends_with(".read");
  static const char* kFamilies[] = {"payroll", "files",           "assets",          "projects", "bankfeeds",
                                    "finance", "paymentservices", "practicemanager", "app",      "marketplace"};
  const auto family = scope.substr(0, scope.find('.'));
  return lower && std::any_of(std::begin(kFamilies), std::end(kFamilies), [&](const char* f) { return family == f; });
}

// The host of an http(s) URI ("http://127.0.0.1:8123/cb" → "127.0.0.1"); empty for anything else.
std::string host_of(std::string_view uri) {
  std::size_t start;
  if (uri.starts_with("http://"))
    start = 7;
  else if (uri.starts_with("https://"))
    start = 8;
  else
    return {};
  if (uri.find('#') != std::string_view::npos) return {};
  const auto end = uri.find_first_of(":/?", start);
  return core::to_lower(uri.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

std::string jwt(const json& claims) {
  const json header = {{"alg", "RS256"},
                       {"kid", "1CAF8E66772D6DC028D6726FD0261581570EFC19"},
                       {"typ", "JWT"},
                       {"x5t", "HK-OZndtbcAo1nJv0CYVgVcO_Bk"}};
  return base64url(header.dump()) + "." + base64url(claims.dump()) + "." + core::random_base64url(64);
}

Response page(Status status, const std::string& message) {
  return Response::text(
      "<!DOCTYPE html><html><head><title>Xero | Error</title></head><body><h1>Sorry, something "
      "went wrong</h1><p>" +
          core::html_escape(message) + "</p></body></html>",
      status, "text/html; charset=utf-8");
}

}  // namespace

json XeroFake::token_response(const std::string& grant_id, bool with_refresh) {
  const auto& grant = grants_.at(grant_id);
  const auto now = core::now();
  const auto iat = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const auto lifetime = token_settings_.access_lifetime.count();
  const auto scopes = core::split(grant.scope, ' ');
  json scope_list = json::array();
  for (const auto s : scopes) scope_list.push_back(std::string(s));
  const std::string access = jwt({{"nbf", iat},
                                  {"exp", iat + lifetime},
                                  {"iss", "https://identity.xero.com"},
                                  {"aud", "https://identity.xero.com/resources"},
                                  {"client_id", options_.client_id},
                                  {"sub", kSubject},
                                  {"auth_time", iat},
                                  {"xero_userid", kUserId},
                                  {"global_session_id", grant.session_id},
                                  {"sid", grant.session_id},
                                  {"jti", core::random_hex(16)},
                                  {"authentication_event_id", grant.auth_event_id},
                                  {"scope", scope_list},
                                  {"amr", {"pwd"}}});
  access_tokens_[access] = AccessToken{.grant_id = grant_id, .expires = now + token_settings_.access_lifetime};
  ++tokens_issued_;
  json out = {{"access_token", access}, {"expires_in", lifetime}, {"token_type", "Bearer"}, {"scope", grant.scope}};
  if (std::find(scopes.begin(), scopes.end(), "openid") != scopes.end())
    out["id_token"] = jwt({{"nbf", iat},
                           {"exp", iat + 300},
                           {"iss", "https://identity.xero.com"},
                           {"aud", options_.client_id},
                           {"iat", iat},
                           {"auth_time", iat},
                           {"sub", kSubject},
                           {"sid", grant.session_id},
                           {"xero_userid", kUserId},
                           {"global_session_id", grant.session_id},
                           {"preferred_username", options_.user_email},
                           {"email", options_.user_email},
                           {"given_name", "Fiona"},
                           {"family_name", "Marsh"},
                           {"amr", {"pwd"}}});
  if (with_refresh && std::find(scopes.begin(), scopes.end(), "offline_access") != scopes.end()) {
    const std::string refresh = core::random_hex(32);
    refresh_tokens_[refresh] = RefreshToken{.grant_id = grant_id, .issued = now, .used = std::nullopt};
    out["refresh_token"] = refresh;
  }
  return out;
}

void XeroFake::install_identity(core::http::Router& router) {
  // --- authorize: the fake consent ---
  router.get(std::string(kIdentity) + "/authorize", [this](Request& req) -> awaitable<Response> {
    const auto param = [&](const char* name) { return std::string(req.query.get(name).value_or("")); };
    const std::string client_id = param("client_id"), redirect_uri = param("redirect_uri"), state = param("state"),
                      scope = param("scope"), challenge = param("code_challenge"),
                      method = param("code_challenge_method");
    std::string client;
    std::vector<std::string> hosts;
    {
      std::lock_guard lock(mutex_);
      ++requests_;
      client = options_.client_id;
      hosts = options_.redirect_hosts;
    }
    if (client_id != client) co_return page(Status::bad_request, "Invalid client_id '" + client_id + "'.");
    const std::string host = host_of(redirect_uri);
    if (host.empty() || std::find(hosts.begin(), hosts.end(), host) == hosts.end())
      co_return page(Status::bad_request, "Invalid redirect_uri '" + redirect_uri +
                                              "': it is not one of the redirect URIs saved against this app.");
    const auto back = [&](const std::string& params) {
      auto res = Response::empty(Status::found);
      std::string location = redirect_uri + (redirect_uri.find('?') == std::string::npos ? "?" : "&") + params;
      if (!state.empty()) location += "&state=" + core::url_encode(state);
      res.headers.set(boost::beast::http::field::location, location);
      return res;
    };
    if (param("response_type") != "code") co_return back("error=unsupported_response_type");
    std::vector<std::string> scopes;
    for (const auto s : core::split(scope, ' '))
      if (!s.empty()) scopes.emplace_back(s);
    if (scopes.empty() || !std::all_of(scopes.begin(), scopes.end(), [](const auto& s) { return known_scope(s); }))
      co_return back("error=invalid_scope");
    if (!challenge.empty() && method != "S256")
      co_return back("error=invalid_request&error_description=" +
                     core::url_encode("code_challenge_method must be S256"));
    if (!challenge.empty() && !pkce_shaped(challenge))
      co_return back("error=invalid_request&error_description=" + core::url_encode("code_challenge is not valid"));
    std::string code, session;
    {
      std::lock_guard lock(mutex_);
      if (faults_.deny_authorizations > 0) {
        --faults_.deny_authorizations;
        ++denied_authorizations_;
        co_return back("error=access_denied");
      }
      ++authorizations_;
      const auto now = core::now();
      const std::string grant_id = core::random_uuid();
      Grant grant{
          .scope = core::join(scopes, " "), .auth_event_id = core::random_uuid(), .session_id = core::random_hex(16)};
      // The user connects the organisation: a new connection, or the same one renewed.
      if (connection_) {
        connection_->auth_event_id = grant.auth_event_id;
        connection_->updated = now;
      } else {
        connection_ =
            Connection{.id = core::random_uuid(), .auth_event_id = grant.auth_event_id, .created = now, .updated = now};
      }
      session = grant.session_id;
      grants_[grant_id] = std::move(grant);
      code = core::random_hex(32);
      codes_[code] = Code{.grant_id = grant_id,
                          .client_id = client_id,
                          .redirect_uri = redirect_uri,
                          .challenge = challenge,
                          .expires = now + token_settings_.code_lifetime};
    }
    co_return back("code=" + code + "&scope=" + core::url_encode(core::join(scopes, " ")) +
                   "&session_state=" + session);
  });

  // --- token ---
  router.post(std::string(kIdentity) + "/token", [this](Request& req) -> awaitable<Response> {
    {
      std::lock_guard lock(mutex_);
      ++requests_;
    }
    if (!core::starts_with_icase(req.header("content-type"), "application/x-www-form-urlencoded"))
      co_return xero::oauth_error("invalid_request");
    auto form = parse_form(req.body);
    // The client: HTTP Basic (RFC 6749 2.3.1: each part form-encoded), else the form's.
    std::string id = form["client_id"], secret = form["client_secret"];
    const auto authorization = core::trim(req.header("authorization"));
    const std::string basic(core::starts_with_icase(authorization, "Basic ") ? core::trim(authorization.substr(6))
                                                                             : "");
    std::optional<std::string> decoded;
    if (!basic.empty()) {
      decoded = base64_decode(basic);
      const auto colon = decoded ? decoded->find(':') : std::string::npos;
      if (colon != std::string::npos) {
        id = core::url_decode(decoded->substr(0, colon), true).value_or("");
        secret = core::url_decode(decoded->substr(colon + 1), true).value_or("");
      }
    }
    const auto now = core::now();
    std::lock_guard lock(mutex_);
    // An error's description, quoting with the echo switch what the request carried (echo.hpp).
    const auto oauth_refusal = [&](std::string error) {
      std::string description = echoes_.message(faults_.echo, "",
                                                {{"Authorization", basic},
                                                 {"client_secret", secret},
                                                 {"code", form["code"]},
                                                 {"code_verifier", form["code_verifier"]},
                                                 {"refresh_token", form["refresh_token"]}});
      return xero::oauth_error(std::move(error), std::move(description));
    };
    if (!basic.empty() && (!decoded || decoded->find(':') == std::string::npos))
      co_return oauth_refusal("invalid_client");
    if (id != options_.client_id || !core::constant_time_equals(secret, options_.client_secret))
      co_return oauth_refusal("invalid_client");
    const std::string grant_type = form["grant_type"];

    if (grant_type == "authorization_code") {
      const auto it = codes_.find(form["code"]);
      if (it == codes_.end()) {
        ++refused_codes_;
        co_return oauth_refusal("invalid_grant");
      }
      const Code code = it->second;
      codes_.erase(it);  // single use, whatever comes of this attempt
      const auto refuse = [&] {
        ++refused_codes_;
        return oauth_refusal("invalid_grant");
      };
      if (now >= code.expires || code.client_id != id || form["redirect_uri"] != code.redirect_uri) co_return refuse();
      if (!code.challenge.empty()) {
        const std::string verifier = form["code_verifier"];
        if (!pkce_shaped(verifier) || !core::constant_time_equals(s256(verifier), code.challenge)) co_return refuse();
      }
      const auto grant = grants_.find(code.grant_id);
      if (grant == grants_.end() || grant->second.revoked) co_return refuse();
      ++codes_redeemed_;
      co_return Response::json(token_response(code.grant_id, true));
    }

    if (grant_type == "refresh_token") {
      const auto it = refresh_tokens_.find(form["refresh_token"]);
      const auto refuse = [&] {
        ++refused_refresh_tokens_;
        return oauth_refusal("invalid_grant");
      };
      if (it == refresh_tokens_.end()) co_return refuse();
      auto& token = it->second;
      const auto grant = grants_.find(token.grant_id);
      if (grant == grants_.end() || grant->second.revoked) co_return refuse();
      if (!token.used && now >= token.issued + token_settings_.refresh_lifetime) co_return refuse();
      // Rotation: a used refresh token works again only within the grace period (developer.xero.com/faq/oauth2).
      if (token.used && now >= *token.used + token_settings_.refresh_grace) co_return refuse();
      if (!token.used) token.used = now;
      ++refreshes_;
      co_return Response::json(token_response(token.grant_id, true));
    }
    co_return xero::oauth_error("unsupported_grant_type");
  });

  // --- revocation: a refresh token, and with it its token set ---
  router.post(std::string(kIdentity) + "/revocation", [this](Request& req) -> awaitable<Response> {
    auto form = parse_form(req.body);
    std::string id = form["client_id"], secret = form["client_secret"];
    const auto authorization = core::trim(req.header("authorization"));
    if (core::starts_with_icase(authorization, "Basic ")) {
      const auto decoded = base64_decode(core::trim(authorization.substr(6)));
      const auto colon = decoded ? decoded->find(':') : std::string::npos;
      if (colon != std::string::npos) id = decoded->substr(0, colon), secret = decoded->substr(colon + 1);
    }
    std::lock_guard lock(mutex_);
    ++requests_;
    if (id != options_.client_id || !core::constant_time_equals(secret, options_.client_secret))
      co_return xero::oauth_error("invalid_client");
    if (const auto it = refresh_tokens_.find(form["token"]); it != refresh_tokens_.end())
      if (const auto grant = grants_.find(it->second.grant_id); grant != grants_.end()) grant->second.revoked = true;
    co_return Response::empty(Status::ok);
  });

  // --- connections (the API's, outside api.xro: no tenant header, no Accounting limits) ---
  for (const std::string at : {"/xero/api/connections", "/xero/api/Connections"}) {
    router.get(at, [this](Request& req) -> awaitable<Response> {
      std::lock_guard lock(mutex_);
      ++requests_;
      auto who = authenticate(req);
      if (auto* refused = std::get_if<Response>(&who)) co_return std::move(*refused);
      json list = json::array();
      const auto event = req.query.get("authEventId");
      if (connection_ && (!event || core::iequals(*event, connection_->auth_event_id)))
        list.push_back({{"id", connection_->id},
                        {"authEventId", connection_->auth_event_id},
                        {"tenantId", options_.tenant_id},
                        {"tenantType", "ORGANISATION"},
                        {"tenantName", options_.tenant_name},
                        {"createdDateUtc", xero::connection_time(connection_->created)},
                        {"updatedDateUtc", xero::connection_time(connection_->updated)}});
      co_return Response::json(list);
    });
    router.del(at + "/{id}", [this](Request& req) -> awaitable<Response> {
      std::lock_guard lock(mutex_);
      ++requests_;
      auto who = authenticate(req);
      if (auto* refused = std::get_if<Response>(&who)) co_return std::move(*refused);
      if (!connection_ || !core::iequals(req.param("id"), connection_->id))
        co_return xero::problem(404, "The resource you're looking for cannot be found");
      // The organisation is no longer connected: no token set can reach anything now.
      connection_.reset();
      for (auto& [id, grant] : grants_) grant.revoked = true;
      ++disconnections_;
      co_return Response::empty();
    });
  }
}

}  // namespace sandbox
