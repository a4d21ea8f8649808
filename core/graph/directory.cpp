#include "core/graph/directory.hpp"

#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

#include <chrono>

namespace core::graph {

using boost::asio::awaitable;
using core::http::OutboundRequest;
using core::http::OutboundResponse;
using namespace std::chrono_literals;

namespace {

constexpr auto kReportTimeout = 120s;      // a large tenant's report is megabytes
constexpr std::size_t kTokenSegment = 16;  // a download URL's last path segment this long is its token

bool is_local_part_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view(".-_'!#^~+").find(c) != std::string_view::npos;
}

}  // namespace

std::optional<std::string> directory_user_id(std::string_view raw) {
  if (raw.empty() || raw.size() > 254) return std::nullopt;
  if (core::is_uuid(raw)) return core::to_lower(raw);
  const auto at = raw.find('@');
  if (at == std::string_view::npos || at == 0 || at > 64) return std::nullopt;
  const auto local = raw.substr(0, at);
  for (const char c : local)
    if (!is_local_part_char(c)) return std::nullopt;
  if (local.front() == '.' || local.back() == '.' || local.find("..") != std::string_view::npos) return std::nullopt;
  if (!core::is_domain_name(raw.substr(at + 1)) || !core::is_email_address(raw)) return std::nullopt;
  return core::to_lower(raw);
}

awaitable<std::optional<Photo>> DirectoryClient::photo(std::string user, std::size_t max_bytes) {
  OutboundRequest req;
  req.url = graph_->settings().base_url + "/v1.0/users/" + core::url_encode(user) + "/photo/$value";
  req.headers = {{"Accept", "image/*"}};
  const std::string what = "GET /v1.0/users/{id}/photo/$value";
  const auto res = co_await graph_->authorized(std::move(req));
  if (res.status == 404) co_return std::nullopt;  // the user has no photo (or there is no such user)
  if (!res.ok()) throw error_from(res, what);
  if (res.body.size() > max_bytes)
    throw GraphError(
        res.status, "PhotoTooLarge",
        what + ": the photo has " + std::to_string(res.body.size()) + " bytes, more than " + std::to_string(max_bytes));
  const std::string type(core::trim(res.header("content-type")));
  if (!core::starts_with_icase(type, "image/"))
    throw GraphError(res.status, "InvalidResponse", what + ": the answer is not an image");
  co_return Photo{.content_type = type, .bytes = res.body};
}

awaitable<EmailActivityReport> DirectoryClient::email_activity(std::string day) {
  co_return co_await report("date=" + day);
}

awaitable<EmailActivityReport> DirectoryClient::email_activity_period(int days) {
  co_return co_await report("period='D" + std::to_string(days) + "'");
}

awaitable<EmailActivityReport> DirectoryClient::report(std::string argument) {
  OutboundRequest req;
  req.url = graph_->settings().base_url + "/v1.0/reports/getEmailActivityUserDetail(" + argument + ")";
  const std::string what = "GET /v1.0/reports/getEmailActivityUserDetail(" + argument + ")";
  auto res = co_await graph_->authorized(std::move(req));
  if (res.status == 302 || res.status == 303 || res.status == 307) {
    // The pre-authenticated download URL: fetched without the token.
    const std::string location(core::trim(res.header("location")));
    if (!location.starts_with("https://") && !location.starts_with("http://"))
      throw GraphError(res.status, "InvalidResponse", what + ": the redirect has no download URL");
    // Pre-authenticated: whoever holds the URL may download the report, so it is a secret while it
    // lives (a transport error names the URL it failed on). Graph's carries its token as the last
    // path segment (".../data/download/JDFKdf2_eJXKS034dbc7e0t__XDe"), a query may carry one too.
    core::secrets::remember(location);
    const auto query = location.find('?');
    if (query != std::string::npos) core::secrets::remember(location.substr(query + 1));
    const std::string path = location.substr(0, query);
    if (const auto last = path.substr(path.rfind('/') + 1); last.size() >= kTokenSegment) core::secrets::remember(last);
    OutboundRequest download;
    download.url = location;
    download.timeout = kReportTimeout;
    try {
      res = co_await graph_->http().send(std::move(download));
    } catch (const core::http::TransportError& e) {
      throw GraphError(0, "transport", what + ": the report download failed: " + e.what());
    }
    if (!res.ok()) throw error_from(res, what + " (the report download)");
  } else if (!res.ok()) {
    throw error_from(res, what);
  }
  try {
    co_return parse_email_activity_csv(res.body);
  } catch (const UsageReportError& e) {
    throw GraphError(res.status, "InvalidResponse", what + ": " + e.what());
  }
}

}  // namespace core::graph
