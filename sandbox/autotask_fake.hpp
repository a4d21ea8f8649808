#pragma once
// A fake of Autotask's REST API (the PSA), following its published behaviour
// (../shared/vendors.md, "PSA: Autotask REST") rather than any client's expectations, under
// /autotask/atservicesrest so that PSA_BASE_URL = <sandbox>/autotask/atservicesrest/:
//
//   GET  .../V1.0/ZoneInformation?user=<email>     {zoneName, url, webUrl, ci}; url is this fake's REST root,
//                                                  built from the request's Host (no credentials needed)
//   GET  .../V1.0/ThresholdInformation             {externalRequestThreshold, requestThresholdTimeframe,
//                                                  currentTimeframeRequestCount}
//   POST .../V1.0/{Entity}/query                   {MaxRecords, IncludeFields, Filter} → {items, pageDetails}
//   GET  .../V1.0/{Entity}/query?search=<json>     the same, the body in the query string
//   GET|POST .../V1.0/{Entity}/query/next?paging=&search=   the page a nextPageUrl/prevPageUrl names
//   POST .../V1.0/{Entity}/query/count             {Filter} → {queryCount} (GET with ?search= too)
//   GET  .../V1.0/{Entity}/{id}                    {item: {...}}; {item: null} (200) for an id that does not
//                                                  exist, as Autotask answers it
//   GET  .../V1.0/{Entity}/entityInformation/fields           {fields: [{name, dataType, isPickList,
//                                                  picklistValues: [{value, label, isActive, sortOrder,
//                                                  isDefaultValue, parentValue}], ...}]}
//   GET  .../V1.0/{Entity}/entityInformation/userDefinedFields  {fields: []}
//   GET  .../V1.0/{Entity}/entityInformation       {info: {name, canQuery, hasUserDefinedFields, ...}}
//   GET  .../V1.0/Tickets/{id}/Attachments         a ticket's attachments (the TicketAttachments child
//                                                  collection): {items, pageDetails}, items without `data`
//   GET  .../V1.0/Tickets/{id}/Attachments/{aid}   one, with its bytes: {items: [{..., data: base64}]}
//                                                  (Autotask's FileQueryResultModel); {items: []} when the
//                                                  ticket has no such attachment
//   POST .../V1.0/TicketAttachments/query          (and query/next, query/count, GET TicketAttachments/{id}):
//                                                  the attachments as an entity, filterable on ticketID,
//                                                  parentID, title, contentType ...; `data` is never in a
//                                                  query's items, as on Autotask
// (V1.0 or v1.0; entity names case-insensitive.) Entities: Tickets, Companies, Contacts, Resources,
// TimeEntries, Projects, Tasks, Contracts, ConfigurationItems, TagGroups, Tags, TicketTagAssociations,
// DeletedTicketLogs (a deleted ticket leaves one, filterable on deletedDateTime, as in Autotask)
// (fields and picklists: autotask_schema.cpp; the filter: autotask_filter.hpp).
//
// What a client meets, as on Autotask:
//   - every call but ZoneInformation needs the ApiIntegrationCode, UserName and Secret headers; a missing
//     or wrong one is 401 {"errors": [...]} (with `observed_auth_errors`, an unknown UserName or a wrong
//     integration code is a 500 instead, as apigrate/autotask-restapi#19 saw the live service answer);
//   - errors are {"errors": ["..."]}: 500 for a query Autotask refuses (unknown field "Unable to find X in
//     the Ticket Entity.", MaxRecords outside 1..500, an empty Filter, a bad value), 400 for a body that
//     is not JSON, 404 for an unknown entity;
//   - results are ordered by id; a page holds at most MaxRecords (default 500); pageDetails.nextPageUrl
//     is absolute (from Host) and null on the last page; the next page is "id greater than the last one
//     sent", encoded in the URL with the search, so paging neither skips nor repeats while rows are
//     added or removed; GET or POST on it (a POST body there is ignored: the URL carries the query);
//   - IncludeFields limits each item to those fields and id;
//   - an operator Autotask does not know ("ne" for noteq) drops its condition without an error, so the
//     query answers more than was meant (autotask_filter.hpp has the filter's other rules);
//   - the field a change moves, for incremental syncs: Tickets and Companies lastActivityDate, Contacts
//     lastModifiedDate, TimeEntries and Contracts lastModifiedDateTime, Projects and Tasks
//     lastActivityDateTime, ConfigurationItems lastModifiedTime; Resources, TagGroups, Tags and
//     TicketTagAssociations have none (re-read them whole);
//   - at most 3 calls in flight per endpoint (entity): a 4th is 429 (the thread threshold, without
//     Retry-After); ZoneInformation is not limited; 10,000
//     calls a rolling hour: past it 429, and from half of it each call is slowed by 0.5 s (1 s from
//     three quarters), as Autotask's usage latency does.
//
// Control routes (tests in other processes, the demo), under /_sandbox/autotask:
//   POST   /_sandbox/autotask/reset                       forget every row, switch and counter
//   POST   /_sandbox/autotask/seed                        {seed, companies, contacts, resources, tickets,
//                                                         time_entries, projects, tasks, contracts,
//                                                         configuration_items, tag_groups, tags, ticket_tags,
//                                                         days}: a believable MSP (autotask_seed.hpp), six
//                                                         of whose tickets are reported mails with the .eml
//                                                         attached and one has pasted headers
//                                                         (sandbox/phishing_mails.hpp)
//   GET    /_sandbox/autotask/entities/{entity}           every row, by id
//   POST   /_sandbox/autotask/entities/{entity}           one row, added or replaced (id optional) → 201 {item}
//   POST   /_sandbox/autotask/tickets/{id}/attachments    {title, contentType?, raw | data (base64)}: attaches a
//                                                         file (a reported .eml, say) to a ticket → 201 {item}
//   GET    /_sandbox/autotask/tickets/{id}/attachments    its attachments, without their data
//   PATCH  /_sandbox/autotask/entities/{entity}/{id}      change fields; bumps the last-modified field → {item}
//   DELETE /_sandbox/autotask/entities/{entity}/{id}      → 204
//   PUT    /_sandbox/autotask/faults                      {throttle, retry_after, server_errors, status,
//                                                         latency_ms, entity, echo_credentials,
//                                                         error_padding}: with echo_credentials, a refusal
//                                                         of the credentials and a fault's error quote the
//                                                         Secret and ApiIntegrationCode received (echo.hpp)
//   GET    /_sandbox/autotask/stats                       requests, requests_this_hour, refusals, per entity
//                                                         rows, requests, most_in_flight
//   POST   /_sandbox/autotask/webhooks/send               {url, secret, entity_type, id, action, fields?,
//                                                         sequence_number?, person_id?}: one webhook callout,
//                                                         signed as Autotask signs it → {status, body, sent,
//                                                         signature}. Fields: string values under
//                                                         capitalised names ("Status"), or the row's;
//                                                         the body escaped as .NET writes JSON
#include "core/http/router.hpp"
#include "sandbox/autotask_seed.hpp"
#include "sandbox/echo.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

namespace autotask {
struct EntitySchema;
// TicketAttachments as a query and a child collection serve them (`data` is not among its fields:
// no query returns it, and none may filter on it).
const EntitySchema& ticket_attachment_schema();
}  // namespace autotask

struct AutotaskFakeOptions {
  std::string integration_code = "sandbox-integration";
  std::string username = "api@msp.example";
  std::string secret = "sandbox-secret";
  std::string zone_name = "Sandbox Zone";
  std::int64_t ci = 1234567;  // the tenant's instance number ZoneInformation reports
  std::string webhook_guid = "6f1c3a52-9d0e-4b7a-a1e4-2c5d8f9b0a17";  // every callout's Guid
  int threads_per_endpoint = 3;
  int hourly_limit = 10'000;
  bool usage_latency = true;          // slow calls down past half of hourly_limit, as Autotask does
  bool observed_auth_errors = false;  // unknown UserName / wrong integration code: 500, not 401
};

struct AutotaskFaults {
  int throttle = 0;       // the next N API calls answer 429 with Retry-After
  int retry_after = 1;    // seconds
  int server_errors = 0;  // the next N API calls answer `status`
  int status = 503;
  std::chrono::milliseconds latency{0};  // added to every API call (while it holds its thread)
  std::string entity;                    // when set (e.g. "Tickets"), only that endpoint's calls
  EchoSwitch echo;                       // errors quote the Secret and ApiIntegrationCode received (echo.hpp)
};

// One webhook callout, as Autotask posts it to a webhook's URL.
struct AutotaskCallout {
  std::string url;
  std::string secret;
  std::string entity_type = "Ticket";  // Autotask's singular name
  std::int64_t id = 0;
  std::string action = "Update";                // Create, Update, Delete
  std::optional<nlohmann::json> fields;         // {name: value}; values sent as strings. Unset: the row's
  std::optional<std::int64_t> sequence_number;  // unset: the fake's next
  std::optional<std::int64_t> person_id;        // unset: the first resource
};

struct AutotaskCalloutResult {
  int status = 0;  // what the receiver answered; 0 when it could not be reached
  std::string body;
  std::string sent;       // the body posted, byte for byte
  std::string signature;  // the X-Hook-Signature header sent
  std::string error;      // the transport failure, when status is 0
};

class AutotaskFake {
 public:
  explicit AutotaskFake(AutotaskFakeOptions options = {});

  void install(core::http::Router& router);

  // The state behind the control routes, for tests in this process. Entity names as in the URL
  // ("Tickets"), case-insensitive; an unknown one throws std::invalid_argument.
  void reset();
  void seed(const autotask::SeedCounts& counts);
  // Adds a row; a missing id gets the next one, a missing last-modified field now. Returns the row.
  nlohmann::json add(const std::string& entity, nlohmann::json row);
  // Merges `fields` into a row and bumps its last-modified field to now; nullopt if there is none.
  std::optional<nlohmann::json> update(const std::string& entity, std::int64_t id, const nlohmann::json& fields);
  bool remove(const std::string& entity, std::int64_t id);
  std::vector<nlohmann::json> rows(const std::string& entity) const;
  std::optional<nlohmann::json> row(const std::string& entity, std::int64_t id) const;
  // Attaches `bytes` to a ticket as a file attachment (TicketAttachments), kept as Autotask returns
  // them (base64 `data`); throws std::invalid_argument when the fake has no such ticket. Returns
  // the attachment without its data.
  nlohmann::json attach(std::int64_t ticket_id, const std::string& title, const std::string& content_type,
                        std::string_view bytes);
  // A ticket's attachments, without their data.
  std::vector<nlohmann::json> attachments(std::int64_t ticket_id) const;
  void set_faults(AutotaskFaults faults);
  nlohmann::json stats() const;
  const AutotaskFakeOptions& options() const { return options_; }
  std::vector<std::string> echoed() const { return echoes_.values(); }  // what errors quoted (echo.hpp)

  // Posts one callout (named argument: docs/conventions.md); never throws for the receiver's sake.
  boost::asio::awaitable<AutotaskCalloutResult> send_webhook(AutotaskCallout callout);

 private:
  struct Table {
    std::map<std::int64_t, nlohmann::json> rows;
    std::int64_t next_id = 1;
  };
  struct Endpoint {
    int in_flight = 0;
    int most_in_flight = 0;
    std::int64_t requests = 0;
    std::int64_t refused = 0;  // 429 for the thread limit
  };
  struct Thread;  // one call's slot in its endpoint's thread count
  using Work = std::function<core::http::Response(core::http::Request&)>;

  void install_api(core::http::Router& router);      // autotask_fake_api.cpp
  void install_control(core::http::Router& router);  // autotask_fake_control.cpp

  // Runs an API call behind the credentials, the limits and the fault switches.
  boost::asio::awaitable<core::http::Response> serve(core::http::Request& req, std::string endpoint, Work work);
  std::optional<core::http::Response> refuse_credentials(const core::http::Request& req);
  // `message`, quoting the request's credentials when the echo switch is on.
  std::string echoed_message(const core::http::Request& req, std::string message);

  core::http::Response query(core::http::Request& req, const autotask::EntitySchema& entity,
                             const nlohmann::json& search, const std::string& paging);
  core::http::Response count(const autotask::EntitySchema& entity, const nlohmann::json& search);
  void install_attachments(core::http::Router& router);  // autotask_fake_api.cpp

  Table& table(const std::string& entity);  // callers hold mutex_
  const Table& table(const std::string& entity) const;
  nlohmann::json add_locked(const std::string& entity, nlohmann::json row, const std::string& now);

  AutotaskFakeOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, Table> tables_;  // by canonical entity name
  std::map<std::string, Endpoint> endpoints_;
  std::deque<std::chrono::steady_clock::time_point> this_hour_;
  AutotaskFaults faults_;
  std::int64_t requests_ = 0;
  std::int64_t refused_credentials_ = 0;
  std::int64_t refused_hourly_ = 0;
  std::int64_t sequence_number_ = 0;
  std::int64_t callouts_ = 0;
  Echoes echoes_;
};

}  // namespace sandbox
