#pragma once
// Session cookies of the server-rendered and JSON consoles.
//
//   auto token = core::http::cookie(req, "ops_session");
//   res.headers.insert("Set-Cookie", core::http::set_cookie(req, {.name = "ops_session", .value = t}));
#include "core/http/message.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace core::http {

// The value of cookie `name` in the request's Cookie header, if sent.
std::optional<std::string> cookie(const Request& req, std::string_view name);

// True when the request reached us over TLS: X-Forwarded-Proto: https from the proxy in front.
bool over_tls(const Request& req);

struct CookieSpec {
  std::string_view name;
  std::string_view value;
  std::string_view path = "/";
  std::string_view same_site = "Strict";  // Strict or Lax
  std::optional<long> max_age;            // nullopt: a session cookie; 0 deletes it
};

// A Set-Cookie value: always HttpOnly, with SameSite and Path as given, and Secure when the
// request came over TLS.
std::string set_cookie(const Request& req, const CookieSpec& spec);

}  // namespace core::http
