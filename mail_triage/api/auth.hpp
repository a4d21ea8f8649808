#pragma once
// Bearer-key authentication of the JSON API (spec: "Authentication").
//
// Every path under /api/v1/, known or not, needs `Authorization: Bearer <key>` with a key from
// API_KEYS; otherwise 401 with `WWW-Authenticate: Bearer`. It runs as middleware, so before
// routing, validation and any database query. Keys are compared in constant time and never
// logged or echoed.
#include "core/config/config.hpp"
#include "core/http/middleware.hpp"
#include "core/openapi/document.hpp"

#include <string>
#include <vector>

namespace mail_triage {

// API_KEYS: comma-separated, surrounding spaces trimmed, empty entries ignored; at least one.
std::vector<std::string> read_api_keys(core::config::Reader& env);

core::http::Middleware bearer_auth(std::vector<std::string> keys);

// The access a route of this service requires, by its path, as `mail-triage routes` lists it:
// "key" under /api/v1/ (bearer_auth), "public" for the /dbusers sign-in form, "console" for the
// other /dbusers pages (the console's own session, checked by its handlers), "public" otherwise
// (the health routes).
std::string access_of(std::string_view path);

// How those access words are documented (core/openapi/document.hpp): the API's bearer key, the
// /dbusers console's session cookie.
core::openapi::Access documented_access();

// True when `header` is "Bearer <token>" (scheme case-insensitive) and the token is one of
// `keys`. Every key is compared, matched or not, so timing reveals neither which nor how much.
bool bearer_matches(std::string_view header, const std::vector<std::string>& keys);

}  // namespace mail_triage
