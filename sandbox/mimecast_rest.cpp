// The Mimecast fake's envelope and error shapes (mimecast_rest.hpp).
#include "sandbox/mimecast_rest.hpp"

#include "core/util/strings.hpp"

namespace sandbox::mimecast {

using core::http::Response;
using core::http::Status;
using nlohmann::json;

Response ok(json data, json pagination) {
  json meta = {{"status", 200}};
  if (!pagination.is_null()) meta["pagination"] = std::move(pagination);
  auto res = Response::json({{"meta", std::move(meta)}, {"data", std::move(data)}, {"fail", json::array()}});
  rate_headers(res);
  return res;
}

Response envelope_error(Status status, const std::string& code, const std::string& message, json key) {
  auto res = Response::json(
      {{"meta", {{"status", static_cast<int>(status)}}},
       {"data", json::array()},
       {"fail",
        json::array({{{"key", std::move(key)},
                      {"errors", json::array({{{"code", code}, {"message", message}, {"retryable", false}}})}}})}},
      status);
  rate_headers(res);
  return res;
}

Response gateway_error(Status status, const std::string& code, const std::string& message) {
  return Response::json({{"fail", json::array({{{"code", code}, {"message", message}}})}}, status);
}

void rate_headers(Response& res) {
  res.headers.set("X-RateLimit-Limit", "300");
  res.headers.set("X-RateLimit-Remaining", "299");
  res.headers.set("X-RateLimit-Reset", "1000");
}

std::map<std::string, std::string> parse_form(std::string_view body) {
  std::map<std::string, std::string> out;
  for (const auto piece : core::split(body, '&')) {
    if (piece.empty()) continue;
    const auto eq = piece.find('=');
    auto key = core::url_decode(piece.substr(0, eq), true);
    auto value = core::url_decode(eq == std::string_view::npos ? std::string_view() : piece.substr(eq + 1), true);
    if (key && value) out.emplace(std::move(*key), std::move(*value));
  }
  return out;
}

}  // namespace sandbox::mimecast
