#pragma once
// Shapes shared by the parts of the Mimecast fake (mimecast_fake*.cpp): the response envelope, the fail
// entries, the gateway's own errors and the token endpoint's form (mimecast_fake.hpp has the sources).
#include "core/http/message.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>

namespace sandbox::mimecast {

// {meta: {status: 200[, pagination]}, data, fail: []}
core::http::Response ok(nlohmann::json data, nlohmann::json pagination = nullptr);
// A function-level failure: HTTP `status` (200 for most), {meta: {status}, data: [], fail: [{key, errors:
// [{code, message, retryable: false}]}]}; `key` is the data item the failure is about.
core::http::Response envelope_error(core::http::Status status, const std::string& code, const std::string& message,
                                    nlohmann::json key);
// The gateway's own refusals (token, bearer, rate limit, 5xx): {"fail": [{code, message}]}.
core::http::Response gateway_error(core::http::Status status, const std::string& code, const std::string& message);
// Every answer's X-RateLimit-* headers (tech-connect api-overview/rate-limiting).
void rate_headers(core::http::Response& res);
// An application/x-www-form-urlencoded body; the first of a repeated name wins.
std::map<std::string, std::string> parse_form(std::string_view body);

}  // namespace sandbox::mimecast
