#pragma once
// A fake of Microsoft Graph's mail API and its token endpoint, following the published shapes in
// ../shared/vendors.md: client-credentials tokens, message lists with $filter/$select/$top and
// nextLink paging ($skip), mail folders by well-known name, PATCH, move, DELETE, Graph's error
// body, and switches for 429 with Retry-After, 5xx and latency. Ids change on move unless the
// caller sends `Prefer: IdType="ImmutableId"`, as on the real service.
//
// Mailbox remediation (issue 20), as Graph behaves:
//   - $search on a mailbox's messages (GET /v1.0/users/{mb}/messages, all folders, or one folder's)
//     (learn.microsoft.com/graph/search-query-parameter, "Using $search on message collections"): the
//     value is in double quotes (`$search="from:a@b.example"`); without a property it searches from,
//     subject and body; with one: from:, subject:, body:, and to:/cc:/recipients:/participants: (this
//     fake keeps no recipients, so these match when the value is in the mailbox's own address, which
//     every message in it was delivered to; participants: also the sender); terms are ANDed (KQL's
//     default, AND is accepted) and OR joins alternatives; matching is case-insensitive by substring.
//     Results are sorted by the date sent, newest first, at most 1,000 ("A $search request returns up
//     to 1,000 results"), paged with $top and a nextLink. $search cannot be combined with $filter or
//     $orderby (the same page; the message "The query parameter '$orderBy' is not supported with
//     '$search'." as PipedreamHQ/pipedream issue 19132 reports it; the error code ErrorInvalidUrlQuery,
//     Exchange's code for an unsupported query parameter, is unverified here). A $search value not in
//     double quotes is 400 BadRequest (unverified wording).
//   - $filter also takes `internetMessageId eq '<...>'` and `subject eq '...'` (odata_filter.hpp).
//   - A mailbox the app may not open (an Exchange application access policy that leaves it out, or no
//     Mail.ReadWrite consent): after deny_access(mb), every call on it answers 403
//     {"error": {"code": "ErrorAccessDenied", "message": "Access is denied. Check credentials and try
//     again."}} (Graph's answer as clients record it; the usual cause: "Application Access Policy
//     denied"). The token and fault switches are checked first, as the service checks them first.
//   - Remediation's move: POST .../messages/{id}/move {"destinationId": "deleteditems"} → 201 with the
//     message, now in Deleted Items (recoverable; listed by mailFolders/deleteditems/messages); DELETE
//     → 204, the message leaves the folders (kept in deleted(mb), like Recoverable Items).
//
// Sending (issue 21), as learn.microsoft.com/graph/api/user-sendmail documents it:
//   - POST /v1.0/users/{id | userPrincipalName}/sendMail {message: {subject, body: {contentType:
//     "Text"|"HTML", content}, toRecipients: [{emailAddress: {address, name?}}], ccRecipients?,
//     bccRecipients?}, saveToSentItems?} → 202 with an empty body. Behind the token, the fault
//     switches and the mailbox checks of every route (an unknown sender: 404 ErrorInvalidUser, as for
//     any call on a mailbox the fake does not have; a denied one: 403 ErrorAccessDenied). The app
//     needs the Mail.Send application permission: after grant_mail_send(false) every sendMail answers
//     403 ErrorAccessDenied "Access is denied. Check credentials and try again." (what Graph answers an
//     app without it). No recipient in to, cc and bcc: 400 ErrorInvalidRecipients "At least one
//     recipient is not valid., A message can't be sent because it contains no recipients."; an address
//     that is not an e-mail address: 400 ErrorInvalidRecipients "At least one recipient is not valid.,
//     Recipient '<address>' is not resolved. All recipients must be resolved before a message can be
//     submitted." (both as Graph's clients record them). A body that is not JSON or has no message
//     object: 400 BadRequest; a contentType other than text or html (any case): 400 RequestBodyRead
//     (the code unverified). saveToSentItems (default true) also files a copy, read, in the sender's
//     Sent Items. Nothing is delivered: sent() and GET /_sandbox/graph/sent list what was accepted.
//   - The `send_fail` fault ({status, code, message?}): every sendMail that passes the checks above
//     answers that status with Graph's error body, until the faults are replaced.
//
// Directory and usage reports (issue 22; graph_fake_directory.cpp), behind the same token and fault
// switches (throttle, server_errors with its status, latency):
//   - GET /v1.0/users/{id | userPrincipalName}/photo/$value
//     (learn.microsoft.com/graph/api/profilephoto-get): 200 with the photo's bytes and its
//     Content-Type; a directory user without a photo: 404 {"error": {"code": "ImageNotFound", "message":
//     "Exception of type 'Microsoft.Fast.Profile.Core.Exception.ImageNotFoundException' was thrown."}};
//     no such user: 404 Request_ResourceNotFound "Resource '<id>' does not exist or one of its queried
//     reference-property objects are not present." Directory users: add_directory_user, every mailbox,
//     every user with a photo; each has a GUID object id, accepted in place of the name.
//   - GET /v1.0/reports/getEmailActivityUserDetail(date=YYYY-MM-DD) and (period='D7|D30|D90|D180')
//     (learn.microsoft.com/graph/api/reportroot-getemailactivityuserdetail): 302 Found, Content-Type
//     text/plain, Location: a pre-authenticated download URL on this server
//     (/data/download/{token}, valid 5 minutes, no Authorization needed) serving
//     application/octet-stream: a UTF-8 byte-order mark (as the real files start, issue
//     microsoftgraph/microsoft-graph-docs#7522) and the CSV with the columns Report Refresh Date, User
//     Principal Name, Display Name, Is Deleted, Deleted Date, Last Activity Date, Send Count, Receive
//     Count, Read Count, Meeting Created Count, Meeting Interacted Count, Assigned Products, Report
//     Period. The data lags: the refresh date is today (UTC) minus `report_lag_days` (2, the 48 hours of
//     vendors.md); a date after it downloads as the header alone (Graph answers an empty list for a day
//     not processed yet, microsoftgraph/microsoft-graph-docs-contrib#2654). A date more than 28 days
//     back: 400 {"error": {"code": "InvalidArgument", "message": "Invalid date value specified:
//     <date>. Only support data for the past 28 days."}} (as issue
//     microsoftgraph/microsoft-graph-docs#8946 records it). A date row lists the users with activity
//     that day, Report Period 1 (unverified); a period row sums the period ending at the refresh date.
//     Another period value, or neither: 400 BadRequest (the wording unverified).
//
// The echo switch (echo.hpp, issue 31): the token endpoint's refusals quote the client_secret
// received in error_description; the API's 401s, fault errors and send_fail answers the bearer token
// in error.message; a failed report download (download_errors: 503, the blob store's XML error, as
// Azure Storage answers) the download token of its URL.
//
// Control routes (for tests in other processes and the demo), under /_sandbox/graph:
//   POST   /_sandbox/graph/reset                              forget every mailbox and switch
//   POST   /_sandbox/graph/mailboxes/{mailbox}                create an empty mailbox
//   POST   /_sandbox/graph/mailboxes/{mailbox}/seed           {count, seed, unread}: a realistic demo
//                                                              mailbox (unread: every message unread
//                                                              and from the last 7 days)
//   POST   /_sandbox/graph/mailboxes/{mailbox}/messages       one message (see MessageSpec) → {id}
//   GET    /_sandbox/graph/mailboxes/{mailbox}/messages       every message with folder, isRead, flag
//   PUT    /_sandbox/graph/mailboxes/{mailbox}/access         {denied: true|false}: every call on the
//                                                              mailbox answers 403 ErrorAccessDenied
//   PUT    /_sandbox/graph/faults                             {throttle, retry_after, server_errors,
//                                                              status, latency_ms, method,
//                                                              send_fail: {status 400..599, code, message?},
//                                                              download_errors, echo_credentials,
//                                                              error_padding}
//   PUT    /_sandbox/graph/permissions                        {"Mail.Send": true|false}: the app's
//                                                              application permission to send
//   GET    /_sandbox/graph/sent                               {sent: [{from, subject, contentType, body,
//                                                              to, cc, bcc, saveToSentItems, sentDateTime}]}
//                                                              every message sendMail accepted, oldest first
//   PUT    /_sandbox/graph/users/{user}/photo                 the body is the photo, its Content-Type
//                                                              header the type → {id}
//   DELETE /_sandbox/graph/users/{user}/photo                 the user keeps no photo
//   POST   /_sandbox/graph/usage                              {rows: [{date, user, displayName?, send,
//                                                              receive, read?}]}: e-mail activity per day
//   POST   /_sandbox/graph/usage/seed                         {users, days, seed, domain}: a realistic
//                                                              tenant's activity, the last `days` days
//   PUT    /_sandbox/graph/reports                            {lag_days}: how far the reports lag
//   GET    /_sandbox/graph/stats                              requests, tokens, most in flight per mailbox
#include "core/http/router.hpp"
#include "sandbox/echo.hpp"
#include "sandbox/fake_message.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sandbox {

struct GraphFakeOptions {
  std::string client_id = "sandbox-client";
  std::string client_secret = "sandbox-secret";
  std::chrono::seconds token_lifetime{3599};
  int report_lag_days = 2;  // the usage reports' refresh date is today (UTC) minus this
};

struct GraphFaults {
  int throttle = 0;       // the next N API calls answer 429
  int retry_after = 1;    // seconds, in the 429's Retry-After
  int server_errors = 0;  // the next N API calls answer `status`
  int status = 503;
  std::chrono::milliseconds latency{0};  // added to every API call
  std::string method;                    // when set (e.g. "DELETE"), only calls of this method get the 429s and errors
  int send_fail_status = 0;              // when set, every sendMail answers it with send_fail_code
  std::string send_fail_code;            // Graph's error code, e.g. "ErrorAccessDenied"
  std::string send_fail_message;         // empty: a generic message
  int download_errors = 0;               // the next N report downloads answer 503 (the storage behind them)
  EchoSwitch echo;                       // errors quote the token, secret or download token received (echo.hpp)
};

// A user's e-mail activity on one day, as the usage report counts it.
struct UsageDay {
  std::string user;  // user principal name
  std::string display_name;
  int send = 0;
  int receive = 0;
  int read = 0;
  int meeting_created = 0;
  int meeting_interacted = 0;
  std::string assigned_products = "MICROSOFT 365 BUSINESS STANDARD";
};

// One message sendMail accepted.
struct SentMail {
  struct Recipient {
    std::string address;
    std::string name;
  };
  std::string from;  // the mailbox it was sent from, lowercased
  std::string subject;
  std::string content_type;  // "Text" or "HTML", as sent
  std::string body;
  std::vector<Recipient> to, cc, bcc;
  bool save_to_sent_items = true;
  core::Timestamp sent_at{};
};

class GraphFake {
 public:
  explicit GraphFake(GraphFakeOptions options = {});

  void install(core::http::Router& router);

  // The state behind the control routes, for tests in this process.
  void reset();
  void create_mailbox(const std::string& mailbox);
  std::string add_message(const std::string& mailbox, FakeMessage message);  // returns the id
  void seed(const std::string& mailbox, int count, std::uint32_t seed = 1, bool unread = false);
  std::vector<FakeMessage> messages(const std::string& mailbox) const;
  std::vector<FakeMessage> deleted(const std::string& mailbox) const;
  void set_faults(GraphFaults faults);
  void revoke_tokens();  // every issued token stops working, as after a secret rotation
  // true: every call on the mailbox answers 403 ErrorAccessDenied (the app may not open it); false: it may again.
  void deny_access(const std::string& mailbox, bool denied = true);
  // false: the app lacks the Mail.Send application permission; every sendMail answers 403.
  void grant_mail_send(bool granted = true);
  std::vector<SentMail> sent() const;  // every message sendMail accepted, oldest first
  nlohmann::json stats() const;
  std::vector<std::string> echoed() const { return echoes_.values(); }  // what errors quoted (echo.hpp)

  // The directory (graph_fake_directory.cpp). A user is named by its user principal name; each
  // gets a GUID object id, returned, which the API also accepts.
  std::string add_directory_user(const std::string& upn);
  std::string set_photo(const std::string& user, std::string content_type, std::string bytes);
  void remove_photo(const std::string& user);
  // E-mail activity on `date` (YYYY-MM-DD); a second entry for the same user and date replaces it.
  void add_usage(const std::string& date, UsageDay usage);
  // `users` users of `domain`, with activity on each of the last `days` days (working days busier).
  void seed_usage(int users, int days, std::uint32_t seed = 1, const std::string& domain = "msp.example");
  void set_report_lag(int days);

 private:
  struct Mailbox {
    std::vector<FakeMessage> messages;
    std::vector<FakeMessage> deleted;
    int in_flight = 0;
    int most_in_flight = 0;
  };
  struct Call;  // one API call: its mailbox's in-flight count, released when done

  void install_token(core::http::Router& router);      // graph_fake_token.cpp
  void install_messages(core::http::Router& router);   // graph_fake_messages.cpp (and sendMail)
  void install_control(core::http::Router& router);    // graph_fake_control.cpp
  void install_directory(core::http::Router& router);  // graph_fake_directory.cpp

  // What every API call passes first: the bearer token, then the fault switches (429, 5xx,
  // latency). An error response, or nullopt to go on.
  boost::asio::awaitable<std::optional<core::http::Response>> gate(core::http::Request& req);
  // The directory user `ref` (a name or an object id) names, lowercased; nullopt when unknown.
  // Called with mutex_ held.
  std::optional<std::string> directory_user(const std::string& ref) const;
  std::string object_id(const std::string& upn);  // creates it; mutex_ held

  std::string folder_id(const std::string& mailbox, const std::string& name) const;
  std::optional<std::string> folder_name(const std::string& mailbox, const std::string& ref) const;
  nlohmann::json render(const std::string& mailbox, const FakeMessage& m, bool text_body) const;
  std::string new_id();

  GraphFakeOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, Mailbox> mailboxes_;
  std::set<std::string> denied_;  // mailboxes the app may not open
  bool mail_send_ = true;         // the app's Mail.Send application permission
  std::vector<SentMail> sent_;
  std::map<std::string, std::chrono::steady_clock::time_point> tokens_;
  GraphFaults faults_;
  struct StoredPhoto {
    std::string content_type;
    std::string bytes;
  };
  struct Download {
    std::string csv;
    std::chrono::steady_clock::time_point until;
  };
  std::map<std::string, std::string> directory_;                  // upn → object id
  std::map<std::string, StoredPhoto> photos_;                     // by upn
  std::map<std::string, std::map<std::string, UsageDay>> usage_;  // date → upn → activity
  std::map<std::string, Download> downloads_;                     // by token
  int report_lag_days_ = 2;
  std::int64_t report_requests_ = 0;
  std::int64_t photo_requests_ = 0;
  std::int64_t downloads_served_ = 0;
  std::int64_t downloads_with_token_ = 0;  // a download is pre-authenticated: a client sends no token there
  std::int64_t requests_ = 0;
  std::int64_t tokens_issued_ = 0;
  std::int64_t next_id_ = 1;
  std::int64_t download_errors_ = 0;
  Echoes echoes_;
};

}  // namespace sandbox
