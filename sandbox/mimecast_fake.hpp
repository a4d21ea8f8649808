#pragma once
// A fake of Mimecast API 2.0 (mail security) for the ops console, under /mimecast so that
// MAILSEC_BASE_URL = <sandbox>/mimecast. It follows Mimecast's published API (../shared/vendors.md,
// "Mail security: Mimecast API 2.0", checked against the sources below), not any client's wishes.
//
//   POST /mimecast/oauth/token                          form grant_type=client_credentials&client_id&client_secret
//                                                       → {access_token, token_type: "Bearer", expires_in: 1800}
//   POST /mimecast/api/gateway/get-hold-message-list    held messages, paged
//   POST /mimecast/api/gateway/hold-release             release one held message
//   POST /mimecast/api/message-finder/search            tracked (message-finder) emails
//   POST /mimecast/api/message-finder/get-message-info  one tracked email in detail, with spamInfo
//   GET  /mimecast/siem/v1/events/cg                    the Cloud Gateway SIEM event stream: the message-count feed
//
// What a client meets, as on Mimecast:
//   - The token (developer.services.mimecast.com/api-overview, "API 2.0"; every API 2.0 client seen, e.g.
//     demisto/content MimecastEventCollectorV2, WYRE-AI/node-mimecast src/auth.ts): a form body, the client's
//     id and secret in it, answering {access_token, token_type: "Bearer", expires_in}; tokens live 30 minutes
//     (nango.dev's Mimecast guide: "a Time To Live (TTL) of 30 minutes"; client mocks answer 1799/1800). Here
//     1800 s (PUT /_sandbox/mimecast/token changes it for tokens issued after). A refused token request is
//     401 {"fail": [{"code", "message"}]} for a wrong client id or secret, 400 for another grant type or a
//     missing field: demisto's collector reads `fail[0].message` from the token endpoint, so the `fail` list
//     is the shape; the code words (invalid_client, unsupported_grant_type, invalid_request) are OAuth's and
//     unverified.
//   - Every API call carries `Authorization: Bearer <token>` (a token this fake issued, unexpired); otherwise
//     401 with the same gateway shape {"fail": [{"code": "unauthorized", "message"}]} (the code word is
//     unverified). API 2.0 clients answer a 401 by fetching a new token once (demisto, node-mimecast).
//   - The envelope (integrations.mimecast.com endpoint reference, every page; elastic/integrations'
//     packages/mimecast mock responses): request {meta: {pagination: {pageSize, pageToken}}, data: [{...}]};
//     response {meta: {status, pagination: {pageSize, totalCount, next, previous}}, data: [...], fail: [...]}.
//     "HTTP response codes from the Mimecast API are strictly indicative of the HTTP call status and not the
//     result of the function itself" (tech-connect/documentation/api-overview/response-code): a function that
//     fails answers 200 with data [] and fail [{key: <the data item>, errors: [{code, message, retryable}]}]
//     (the fail shape of Mimecast's own examples, as docs.blinkops.com transcribes them). Codes used:
//     err_validation_null (a required field missing: seen live on audit/get-audit-events),
//     err_validation_value_not_allowed ("Field must be one of [...]": seen live on archive/get-message-detail),
//     err_track_and_trace_invalid_start_date (a message-finder start more than 30 days back: seen live, "strict
//     to the day", meta.status still 200), and, unverified, err_validation_invalid_date (a date that does not
//     parse), err_track_and_trace_invalid_end_date (end before start), err_invalid_page_token,
//     err_hold_release_failed (an id not held, or already released), err_message_not_found. A body that is
//     not JSON, or whose data is not a list of exactly one object (vendors.md), is 400 with the fail shape.
//   - Dates in and out are "2015-11-16T14:49:18+0000" (ISO 8601, offset without a colon, as every endpoint
//     page writes them); RFC 3339 forms ("Z", "+00:00") are accepted too.
//   - Paging: pageSize (default 25, at most 500; unverified figures: 25 is the page size of Mimecast's examples,
//     500 the largest clients offer), pageToken = the `next` (or `previous`) of an earlier answer; items keep
//     one order (newest first), so pages neither skip nor repeat while nothing changes.
//   - Rate limits (tech-connect/documentation/api-overview/rate-limiting): every answer carries
//     X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (milliseconds until a call is added back);
//     a breach is 429. Mimecast documents X-RateLimit-Reset, not Retry-After; the throttle fault sends both
//     (Retry-After in seconds), so a client that honours either is served. The 429 body is the gateway shape
//     {"fail": [{"code": "rate_limit_exceeded", ...}]} (unverified).
//
// get-hold-message-list (integrations.mimecast.com .../message-queues/get-hold-message-list): data [{admin,
//   start, end, searchBy: {fieldName: all|subject|sender|recipient|reason_code, value}}]; admin defaults to
//   false: "If false, only results for the currently authenticated user will be returned. If true, held
//   messages for all recipients", and needs an administrator's permission. Items {id, dateReceived, reason,
//   reasonId ("Mirrors the reason field, formatted without spaces"), reasonCode, policyInfo, from, fromHeader,
//   to, toHeader ({emailAddress, displayableName} each: "from Object Contains the envelope sender information",
//   "to Object Contains the envelope recipient information"), subject, route, hasAttachments, size}, directly
//   in data[] (seen live: "not nested under a heldMessages key"), newest first. The caller of a client-
//   credentials app is its API user (MimecastFakeOptions::caller_email); set_admin(false) makes it a non-admin:
//   then admin: true answers HTTP 403 with the envelope {meta: {status: 403}, data: [], fail: [{key, errors:
//   [{code: "app_forbidden", ...}]}]} ("app_forbidden" is what Mimecast answered live for an endpoint the app may
//   not use; the exact body of this 403 is unverified), and without it only the caller's own held messages.
//   searchBy matches case-insensitively by substring (sender: envelope or header from; recipient: to).
// hold-release (.../message-queues/release-message): data [{id}] → data [{id, release: true}]; an id that is
//   not held (unknown, or released already) is a fail entry, not a 200 release: false (unverified choice). A
//   non-admin caller may release only its own held messages (others: the 403 above).
// message-finder/search (.../message-finder-formerly-tracking/search): data [{start, end, searchReason,
//   messageId, advancedTrackAndTraceOptions: {from, to, subject, senderIP, route}}] → data [{trackedEmails:
//   [{id, status, fromEnv: {emailAddress}, fromHdr: {emailAddress, displayableName}, to: [{emailAddress,
//   displayableName}], received, sent, subject, senderIP, attachments, route, info}]}] (fields seen live:
//   "returns fromEnv, fromHdr, to, route, subject, status per message"). from/to take an address or a domain
//   ("The sending email address or domain"); subject matches by substring (unverified). The start may be at
//   most 30 days back (seen live; older: err_track_and_trace_invalid_start_date), end defaults to now, start to
//   a day before end. Rejected and deferred records are kept 7 days (Mimecast support, "Message Tracking").
//   Status words served and what the console maps them to:
//     delivered, archived  → accepted   (delivered to the mailbox; archived = delivered and archived)
//     held                 → held
//     rejected             → rejected
//     bounced              → bounced
//   (the node-mimecast client's list of tracking statuses is accepted, blocked, bounced, deferred, delivered,
//   failed, held, processing, queued; the seed serves the five above, add_tracked takes any).
// message-finder/get-message-info (.../get-message-info): data [{id}] → data [{id, status, deliveredMessage,
//   recipientInfo: {messageInfo: {fromEnvelope, fromHeader, subject, to, cc, sent, processed, attachments},
//   recipientMetaInfo: {...}}, retentionInfo: {...}, spamInfo: {spamScore, detectionLevel,
//   spamProcessingDetail: {spf, dkim, dmarc, rbl, greyEmail, permittedSender, managedSender, spamVerdict}}}]
//   (the keys seen live were exactly deliveredMessage, id, recipientInfo, retentionInfo, spamInfo, status; the
//   inside of spamInfo follows get-held-release-logs' spamScore, detectionLevel and spamProcessingDetail,
//   whose shape Mimecast's example in elastic/integrations gives; that spamInfo holds them is unverified).
//
// The message-count feed (issue 20: "per internal user and UTC day, messages sent and received"). Mimecast
// API 2.0 has no per-user message-count endpoint: its endpoint list (as zachvier/mimecast-api-2.0
// endpoints/extracted_endpoints.txt extracts it from developer.services.mimecast.com) has per-tenant queue
// counts (/api/email/get-email-queues), threat statistics (/threats/v1/stats/*), an aggregate
// /email/cloud-gateway/v1/statistics, and held-reason counts, none per user and day. Message tracking caps at
// 30 days and is a search, not a feed. The feed Mimecast offers for every message is the SIEM event stream,
// GET /siem/v1/events/cg (developer.services.mimecast.com/siem-tutorial-cg; demisto's MimecastEventCollectorV2
// and gravwell's ingester call it): query pageSize (default 100, at most 500 here), dateRangeStartsAt,
// dateRangeEndsAt ("2025-01-01T12:30:45.000Z"), nextPage, types (comma-separated: receipt, delivery, process,
// ...) → {value: [events], "@nextPage": token, pageSize, isCaughtUp}. So that is the endpoint faked, and the
// console aggregates it: one receipt event per message and recipient, {aggregateId, processingId, accountId,
// timestamp (Unix ms), eventType: "receipt", direction: Inbound|Outbound|Internal, senderEnvelope, senderHeader,
// recipients, messageId, subject, action: "Acc", senderIp, numberAttachments, spamScore, tlsVersion} (the field
// names of Mimecast's sample receipt log in Sumo Logic's Mimecast app docs and the collectors' fixtures).
// A user's sent messages are the receipts with direction Outbound or Internal whose senderEnvelope is theirs;
// received, Inbound or Internal whose recipients are theirs; the day is the UTC day of `timestamp`.
// GET /_sandbox/mimecast/counts gives exactly those sums, for tests to compare with. Only receipt events are
// served (types without receipt answer an empty stream); an unknown type or a bad date is 400.
//
// Faults (the switches every fake here has) apply to the API calls a valid token reaches, not to the token:
// throttle (the next N calls answer 429), retry_after (seconds), server_errors (the next N answer `status`),
// latency_ms (added to each call; up to 600,000, so a console's 20-second timeout can be tested),
// latency_calls (0: every call; N: only the next N), endpoint (when set, e.g. "/api/gateway/hold-release",
// only calls of that path get the faults), client_id (when set, only calls whose token was issued to that
// client: one Mimecast account failing while another works, as a console with two tenants sees it). The
// echo switch (echo_credentials, error_padding: echo.hpp) applies to the token too: a refused token quotes
// the client_secret received, an API call's 401 and fault error the bearer token, in the gateway error's
// message.
//
// Registered clients (MimecastFakeOptions): client_id "sandbox-mailsec", secret "sandbox-mailsec-secret", and
// "sandbox-mailsec-lab" / "sandbox-mailsec-lab-secret", a second account's API application (a console's second
// tenant) that shares this fake's rows; the app's API user (the "caller") is helpdesk@northwind-it.example, an
// administrator until set_admin(false).
//
// Control routes (tests in other processes, the demo), under /_sandbox/mimecast:
//   POST /_sandbox/mimecast/reset     forget tokens, rows, switches and counters (admin again)
//   POST /_sandbox/mimecast/seed      {seed, held, tracked, users, days} → 201 {held, tracked, events, users}:
//                                     replaces every row (mimecast_seed.hpp; defaults 1, 150, 200, 12, 7)
//   PUT  /_sandbox/mimecast/faults    {throttle, retry_after, server_errors, status, latency_ms, latency_calls,
//                                     endpoint, client_id, echo_credentials, error_padding}
//   PUT  /_sandbox/mimecast/admin     {admin: false}: the caller is not an administrator (true: it is again)
//   PUT  /_sandbox/mimecast/token     {expires_in}: the lifetime of tokens issued from now on
//   GET  /_sandbox/mimecast/stats     {requests, token_requests, tokens_issued, refused_tokens, unauthorized,
//                                     forbidden, throttled, server_errors, released, most_in_flight, admin,
//                                     calls: {<path>: n}, rows: {held, held_now, tracked, events}}
//   GET  /_sandbox/mimecast/held      {items}: every held message as the API renders it, with "released"
//   POST /_sandbox/mimecast/held      one held message {subject, from, from_name, to, to_name, reason,
//                                     reason_code, route, received_at, size, has_attachments} → 201 {id}
//   GET  /_sandbox/mimecast/tracked   {items}: every tracked email, with "spamScore"
//   POST /_sandbox/mimecast/tracked   one tracked email {status, from, from_name, to: [..], subject, route,
//                                     received_at, spam_score, detection_level, message_id} → 201 {id}
//   GET  /_sandbox/mimecast/counts    {counts: [{user, day, sent, received}]}: the sums of the receipt events
//                                     per internal user and UTC day
#include "core/http/router.hpp"
#include "sandbox/echo.hpp"
#include "sandbox/mimecast_seed.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace sandbox {

struct MimecastFakeOptions {
  std::string client_id = "sandbox-mailsec";
  std::string client_secret = "sandbox-mailsec-secret";
  std::map<std::string, std::string> other_clients = {  // client id → secret: other accounts' applications
      {"sandbox-mailsec-lab", "sandbox-mailsec-lab-secret"}};
  std::string caller_email = "helpdesk@northwind-it.example";  // the app's API user
  std::string account_id = "CDE22A102";                        // accountId in SIEM events
  int token_lifetime = 1800;                                   // seconds
};

struct MimecastFaults {
  int throttle = 0;       // the next N API calls answer 429
  int retry_after = 1;    // seconds, in Retry-After (X-RateLimit-Reset carries the same in ms)
  int server_errors = 0;  // the next N API calls answer `status`
  int status = 503;
  std::chrono::milliseconds latency{0};  // added to API calls
  int latency_calls = 0;                 // 0: every call; N: only the next N calls
  std::string endpoint;                  // when set ("/api/gateway/hold-release"), only calls of this path
  std::string client_id;                 // when set, only calls whose token was issued to this client
  EchoSwitch echo;                       // errors quote the token or client secret received (echo.hpp)
};

class MimecastFake {
 public:
  explicit MimecastFake(MimecastFakeOptions options = {});

  void install(core::http::Router& router);

  // The state behind the control routes, for tests in this process; thread-safe.
  void reset();
  void seed(const MimecastFakeSeedOptions& options);  // replaces every row
  void set_faults(MimecastFaults faults);
  void set_admin(bool admin);                        // false: the caller is not a Mimecast administrator
  void set_token_lifetime(int seconds);              // for tokens issued from now on
  void revoke_tokens();                              // every issued token stops working
  std::string add_held(mimecast::Held held);         // a missing id gets a new one; returns it
  std::string add_tracked(mimecast::Tracked email);  // likewise
  nlohmann::json held() const;                       // every held message, rendered, with "released"
  nlohmann::json tracked() const;                    // every tracked email, rendered, with "spamScore"
  nlohmann::json counts() const;                     // [{user, day, sent, received}] of the receipt events
  nlohmann::json stats() const;
  const MimecastFakeOptions& options() const { return options_; }
  std::vector<std::string> echoed() const { return echoes_.values(); }  // what errors quoted (echo.hpp)

 private:
  struct Issued {  // a token's
    std::chrono::steady_clock::time_point expiry;
    std::string client_id;
  };
  // An API handler: the one data item of the request and its meta; under mutex_. It answers the whole
  // response (the envelope included) so it can also answer a fail entry or a 403.
  struct Call {
    const core::http::Request& req;
    const nlohmann::json& item;  // data[0]
    const nlohmann::json& meta;  // meta, or an empty object
  };
  using Work = std::function<core::http::Response(const Call&)>;
  using Plain = std::function<core::http::Response(core::http::Request&)>;

  void install_api(core::http::Router& router);      // mimecast_fake_api.cpp
  void install_control(core::http::Router& router);  // mimecast_fake_control.cpp

  // The bearer token, then the faults and latency, then Mimecast's request envelope (checked and split),
  // then `work` under the lock. serve_plain: the same without the envelope (the SIEM GET has none).
  boost::asio::awaitable<core::http::Response> serve(core::http::Request& req, std::string endpoint, Work work);
  boost::asio::awaitable<core::http::Response> serve_plain(core::http::Request& req, std::string endpoint, Plain work);
  boost::asio::awaitable<std::optional<core::http::Response>> gate(core::http::Request& req,
                                                                   const std::string& endpoint);
  core::http::Response issue_token(const core::http::Request& req);
  const Issued* authorised(const core::http::Request& req) const;  // a live token's issue, or null; under mutex_
  std::string next_id(const char* prefix);                         // callers hold mutex_

  MimecastFakeOptions options_;
  mutable std::mutex mutex_;
  mimecast::Data data_;
  std::unordered_map<std::string, Issued> tokens_;
  int token_lifetime_;
  bool admin_ = true;
  MimecastFaults faults_;
  std::map<std::string, std::int64_t> calls_;  // per endpoint path
  std::int64_t requests_ = 0, token_requests_ = 0, tokens_issued_ = 0, refused_tokens_ = 0, unauthorised_ = 0,
               forbidden_ = 0, throttled_ = 0, server_errors_ = 0, released_ = 0, next_id_ = 1;
  int in_flight_ = 0, most_in_flight_ = 0;
  Echoes echoes_;
};

}  // namespace sandbox
