#pragma once
// The client of the PSA, Autotask REST (../shared/vendors.md, "PSA: Autotask REST").
//
//   AutotaskClient psa(executor, settings, health);
//   co_await psa.query_all("Tickets", filter, [&](json items) -> awaitable<void> { ... });  // every page
//   auto ticket = co_await psa.get("Tickets", 351182);     // nullopt: the PSA has no such ticket
//   auto picklists = co_await psa.fields("Tickets");       // entityInformation/fields
//   auto files = co_await psa.ticket_attachments(351182);  // Tickets/{id}/Attachments, without data
//   auto file = co_await psa.attachment(351182, files[0].id);  // .../Attachments/{id}, data decoded
//
// Every call carries ApiIntegrationCode, UserName and Secret, which never reach a log, a URL or
// an error. A query asks for at most 500 records a page and follows pageDetails.nextPageUrl
// verbatim. At most 3 requests are in flight per endpoint (Autotask's thread limit per
// integration and endpoint), and the client keeps under a budget of requests an hour (Autotask
// allows 10,000 per tenant) by waiting for the oldest request of the hour to age out. 429, 502,
// 503 and 504 are retried (core::http::Client, honouring Retry-After); a 500 is not, since
// Autotask answers a query it refuses ("Unable to find X in the Ticket Entity.") with one. What
// fails throws PsaError with a message fit for a problem or a sync_history row. Every request's
// outcome (the sync's, the webhook intake's, the phishing reader's) is recorded for the
// integration-health dashboard (integration key "psa"), a failure by that message.
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "ops_console/integrations/health.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ops_console::psa {

struct PsaSettings {
  std::string base_url;  // the zone's REST root, ".../atservicesrest/" (with or without the slash)
  std::string username;
  std::string secret;
  std::string integration_code;
  std::string webhook_secret;             // empty: webhook signatures are not checked
  std::chrono::minutes sync_interval{5};  // 0: no schedule
  int window_days = 90;                   // tickets the first full sync keeps, besides open ones
  int requests_per_hour = 9'000;          // under Autotask's 10,000, leaving room for other tools
  std::chrono::milliseconds timeout{30'000};

  // All four credentials set; none set means the PSA is not configured (partly set refuses start).
  bool configured() const { return !base_url.empty(); }
};

// PSA_* variables. Partly set credentials are a configuration error (the service exits 2).
PsaSettings read_psa_settings(core::config::Reader& env);

struct PsaError : std::runtime_error {
  using std::runtime_error::runtime_error;
  int status = 0;  // the PSA's HTTP status, 0 for a transport failure

  // 502 psa-failed, with this message (which names no credential).
  core::http::Problem problem() const {
    return core::http::Problem(core::http::Status::bad_gateway, "psa-failed", what());
  }
};

// A ticket's attachment (Autotask's TicketAttachments, through the ticket's child collection).
struct TicketAttachment {
  std::int64_t id = 0;
  std::string title;            // as attached ("Suspicious email.eml", or a title the user typed)
  std::string full_path;        // the file's name or, for a link, its address
  std::string content_type;     // "message/rfc822"
  std::string attachment_type;  // FILE_ATTACHMENT, URL, ...
  std::int64_t file_size = 0;
  std::string data;  // the file's bytes, decoded from base64: attachment() only
};

class AutotaskClient {
 public:
  AutotaskClient(boost::asio::any_io_executor executor, PsaSettings settings, integrations::Health health);
  ~AutotaskClient();

  using PageHandler = std::function<boost::asio::awaitable<void>(nlohmann::json items)>;

  // Runs `query` ({Filter, IncludeFields}; MaxRecords is set here) against `entity` and hands
  // every page's items to `on_page`, in order. Returns the number of items.
  boost::asio::awaitable<std::int64_t> query_all(std::string entity, nlohmann::json query, PageHandler on_page);
  // One entity by id; nullopt when the PSA has none (404, or `item: null`).
  boost::asio::awaitable<std::optional<nlohmann::json>> get(std::string entity, std::int64_t id);
  // entityInformation/fields: [{name, isPickList, picklistValues: [{value, label, ...}]}].
  boost::asio::awaitable<nlohmann::json> fields(std::string entity);
  // A ticket's attachments, without their data (GET Tickets/{id}/Attachments); none when the PSA
  // has no such ticket.
  boost::asio::awaitable<std::vector<TicketAttachment>> ticket_attachments(std::int64_t ticket_id);
  // One attachment with its bytes (GET Tickets/{id}/Attachments/{attachment_id}: {items: [...]},
  // Autotask's FileQueryResultModel; `item` accepted too); nullopt when the ticket has none such.
  boost::asio::awaitable<std::optional<TicketAttachment>> attachment(std::int64_t ticket_id,
                                                                     std::int64_t attachment_id);

 private:
  struct State;
  boost::asio::awaitable<nlohmann::json> call(std::string endpoint, std::string method, std::string url,
                                              std::string body);
  std::shared_ptr<State> state_;
};

}  // namespace ops_console::psa
