#pragma once
// The Microsoft Graph mail client (facts in ../shared/vendors.md).
//
//   GraphClient graph(executor, settings);
//   auto unread = co_await graph.unread_inbox("inbox@msp.example", since);
//   co_await graph.mark_read("inbox@msp.example", unread.front().id);
//   co_await graph.send_mail("helpdesk@msp.example", {.subject = "Ticket T1 analysed", .body = text,
//                                                     .to = {"tech@msp.example"}});
//
// Client-credentials token from {login_url}/{tenant}/oauth2/v2.0/token, cached until five
// minutes before it expires (a 401 from the API drops it and retries once with a new one).
// Every call sends `Prefer: IdType="ImmutableId"`, so ids survive moves, and asks for plain-text
// bodies. At most `max_concurrent` requests per mailbox are in flight at once (Graph throttles
// beyond about 4). 429 and 503 are retried after Retry-After by core::http::Client; other
// failures throw GraphError with the status, Graph's error code and its message.
//
// The directory and usage-report calls (core/graph/directory.hpp) go through the same client with
// authorized(), so one token cache serves both.
//
// `outcome` (optional, core/http/outcome.hpp) hears of every mail API call above, one call per
// request (a page of a list is one), its token request included: a failure by the GraphError's
// message, which names no token or secret. ops-console records it as the mail platform's
// integration health; the directory's callers record theirs themselves.
#include "core/async/semaphore.hpp"
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/outcome.hpp"
#include "core/util/time.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace core::graph {

struct GraphSettings {
  std::string login_url = "https://login.microsoftonline.com";
  std::string base_url = "https://graph.microsoft.com";
  std::string tenant_id;
  std::string client_id;
  std::string client_secret;
  std::size_t max_concurrent = 4;  // requests in flight per mailbox
  int page_size = 50;              // $top
  core::http::ClientOptions http{.integration = "graph"};

  // The credentials a call needs that are unset, by name: empty when configured.
  std::vector<std::string> missing() const;
};

// GRAPH_LOGIN_URL, GRAPH_BASE_URL, GRAPH_TENANT_ID, GRAPH_CLIENT_ID, GRAPH_CLIENT_SECRET: the same
// settings in both services.
GraphSettings read_graph_settings(core::config::Reader& env);

struct MailMessage {
  std::string id;  // immutable id
  std::string internet_message_id;
  std::string subject;
  std::string body;          // plain text (or the preview when the body is absent)
  std::string from_address;  // lowercased; empty when the message has no sender
  std::string from_name;
  core::Timestamp received_at{};
  std::string parent_folder_id;
  bool has_attachments = false;
  std::map<std::string, std::string> headers;  // internetMessageHeaders, names lowercased
};

struct GraphError : std::runtime_error {
  GraphError(int status, std::string code, const std::string& message)
      : std::runtime_error(message), status(status), code(std::move(code)) {}
  int status;        // HTTP status; 0 when no response arrived
  std::string code;  // Graph's error.code, or the token endpoint's error
};

// Where a message goes: a well-known folder name (inbox, archive, junkemail, deleteditems) or an id.
using FolderRef = std::string;

// A message to send (GraphClient::send_mail).
struct OutgoingMail {
  std::string subject;
  std::string content_type = "Text";  // "Text" or "HTML"
  std::string body;
  std::vector<std::string> to;  // recipient addresses
};

class GraphClient {
 public:
  GraphClient(boost::asio::any_io_executor executor, GraphSettings settings, core::http::Outcome outcome = {});

  // Unread messages of the mailbox's Inbox received at or after `since`, every page.
  boost::asio::awaitable<std::vector<MailMessage>> unread_inbox(std::string mailbox, core::Timestamp since);
  // Messages from `address` received before `before`, in every folder but Deleted Items.
  boost::asio::awaitable<std::vector<MailMessage>> from_sender_before(std::string mailbox, std::string address,
                                                                      core::Timestamp before);

  // Messages of the whole mailbox (every folder) matching `query`, Graph's $search (KQL: free
  // text, from:, subject:, ...; sent quoted), at most `limit`.
  boost::asio::awaitable<std::vector<MailMessage>> search(std::string mailbox, std::string query, std::size_t limit);
  boost::asio::awaitable<void> mark_read(std::string mailbox, std::string id);
  boost::asio::awaitable<void> flag(std::string mailbox, std::string id);
  boost::asio::awaitable<void> move(std::string mailbox, std::string id, FolderRef folder);
  boost::asio::awaitable<void> remove(std::string mailbox, std::string id);
  // Sends `mail` as `from_mailbox` (POST /users/{mailbox}/sendMail, saveToSentItems false; the app
  // needs the Mail.Send application permission). Graph answers 202; anything else throws GraphError
  // (an unknown mailbox: 404 ErrorInvalidUser; a bad recipient: 400 ErrorInvalidRecipients), as does
  // a content_type other than Text or HTML, before anything is sent (status 0).
  boost::asio::awaitable<void> send_mail(std::string from_mailbox, OutgoingMail mail);

  // One request with the app's bearer token (a 401 drops the token and asks once more with a new
  // one), answered whatever its status; throws GraphError (status 0) when no response arrived.
  // What the mail calls above and the directory client (core/graph/directory.hpp) share.
  boost::asio::awaitable<core::http::OutboundResponse> authorized(core::http::OutboundRequest request);
  // The HTTP client behind it, for a request that must not carry the token (a report download).
  const core::http::Client& http() const { return http_; }
  const GraphSettings& settings() const { return settings_; }

 private:
  boost::asio::awaitable<std::string> token();
  // One API call: bearer token, Prefer headers, the mailbox's concurrency slot; throws GraphError
  // unless the status is 2xx.
  boost::asio::awaitable<core::http::OutboundResponse> call(const std::string& mailbox,
                                                            core::http::OutboundRequest request);
  // The messages of a list and its nextLinks, at most `limit`.
  boost::asio::awaitable<std::vector<MailMessage>> list(const std::string& mailbox, std::string url, std::size_t limit);
  boost::asio::awaitable<std::string> folder_id(const std::string& mailbox, const std::string& well_known);
  std::string user_url(const std::string& mailbox) const;
  core::async::Semaphore& slots(const std::string& mailbox);

  GraphSettings settings_;
  core::http::Client http_;
  core::http::Outcome outcome_;
  core::async::Semaphore token_refresh_{1};
  std::mutex mutex_;  // guards the members below
  std::string token_;
  std::chrono::steady_clock::time_point token_expires_{};
  std::map<std::string, std::unique_ptr<core::async::Semaphore>> slots_;
  std::map<std::string, std::string> folder_ids_;  // "<mailbox>/<well-known name>" → id (stable)
};

// Parses one message of a Graph message list (exposed for tests).
MailMessage parse_message(const nlohmann::json& item);

// The GraphError for a response that is not a success: its status, Graph's error code and message
// (or the token endpoint's), prefixed by `what` (e.g. "GET /v1.0/users/x/photo/$value").
GraphError error_from(const core::http::OutboundResponse& res, std::string_view what);

}  // namespace core::graph
