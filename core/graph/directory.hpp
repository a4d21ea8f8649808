#pragma once
// Microsoft Graph's directory and usage reports (facts in ../shared/vendors.md), through a
// GraphClient's token and HTTP client (GraphClient::authorized: one token cache for mail and
// directory calls).
//
//   auto graph = std::make_shared<GraphClient>(executor, settings);
//   DirectoryClient directory(graph);
//   auto photo = co_await directory.photo("adele@contoso.example", 4 << 20);   // nullopt: none
//   auto report = co_await directory.email_activity("2026-11-20");
//
// photo: GET /v1.0/users/{id | userPrincipalName}/photo/$value → 200 with the image bytes and its
// Content-Type; 404 (ImageNotFound, ErrorEntityNotFound, or no such user) → nullopt.
// email_activity: GET /v1.0/reports/getEmailActivityUserDetail(date=YYYY-MM-DD) (or period='D7')
// answers 302 Found
// with a pre-authenticated download URL in Location (valid a few minutes, no Authorization header:
// the token is never sent there); the CSV downloaded from it is parsed by
// parse_email_activity_csv (usage_report.hpp). Graph keeps the last 28 days; a day it has not
// processed yet (the reports lag 48 to 72 hours) downloads as a header without rows. The app needs
// the User.Read.All (photos) and Reports.Read.All (reports) application permissions.
//
// Failures throw GraphError: Graph's status, code and message; status 0 when no response arrived.
// A photo larger than `max_bytes` is GraphError(200, "PhotoTooLarge"); a photo whose Content-Type
// is not image/* is GraphError(200, "InvalidResponse").
#include "core/graph/mail.hpp"
#include "core/graph/usage_report.hpp"

#include <boost/asio/awaitable.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace core::graph {

struct Photo {
  std::string content_type;  // image/jpeg, image/png, ... as Graph sent it
  std::string bytes;
};

class DirectoryClient {
 public:
  explicit DirectoryClient(std::shared_ptr<GraphClient> graph) : graph_(std::move(graph)) {}

  boost::asio::awaitable<std::optional<Photo>> photo(std::string user, std::size_t max_bytes);
  // `day`: YYYY-MM-DD (UTC).
  boost::asio::awaitable<EmailActivityReport> email_activity(std::string day);
  // getEmailActivityUserDetail(period='D<days>'): each user's sums over the `days` days (7, 30, 90
  // or 180) up to the report's refresh date.
  boost::asio::awaitable<EmailActivityReport> email_activity_period(int days);

 private:
  // getEmailActivityUserDetail(<argument>), followed to its download and parsed.
  boost::asio::awaitable<EmailActivityReport> report(std::string argument);

  std::shared_ptr<GraphClient> graph_;
};

// A user as the directory routes take it: an Entra object id (a GUID) or a user principal name
// (an e-mail-shaped address: a local part of letters, digits and . - _ ' ! # ^ ~ + without a
// leading, trailing or doubled dot, '@', a domain name), at most 254 characters. Returns it
// lowercased, or nullopt for anything else (slashes, '..', control characters, spaces, ...).
std::optional<std::string> directory_user_id(std::string_view raw);

}  // namespace core::graph
