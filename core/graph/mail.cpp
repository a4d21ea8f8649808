#include "core/graph/mail.hpp"

#include "core/util/secrets.hpp"

#include "core/util/strings.hpp"

#include <chrono>

namespace core::graph {

using boost::asio::awaitable;
using core::http::OutboundRequest;
using core::http::OutboundResponse;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view kScope = "https://graph.microsoft.com/.default";
constexpr auto kTokenMargin = 5min;  // a cached token is renewed this long before it expires
constexpr std::string_view kSelectTriage =
    "id,internetMessageId,subject,body,bodyPreview,from,receivedDateTime,parentFolderId,hasAttachments,"
    "internetMessageHeaders";
constexpr std::string_view kSelectPurge = "id,subject,from,receivedDateTime,parentFolderId";
constexpr std::string_view kSelectSearch =
    "id,internetMessageId,subject,from,receivedDateTime,parentFolderId,hasAttachments";
constexpr int kMaxPages = 10'000;  // a nextLink loop is a server fault, not a reason to spin

std::string text(const json& object, std::string_view key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Graph's filter literals: UTC, whole seconds, "Z".
std::string graph_time(core::Timestamp t) {
  return core::format_rfc3339(std::chrono::floor<std::chrono::seconds>(t)).substr(0, 19) + "Z";
}

// An OData string literal: single quotes doubled.
std::string odata_string(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace

GraphError error_from(const OutboundResponse& res, std::string_view what) {
  std::string code, message;
  try {
    const auto body = json::parse(res.body);
    if (body.contains("error") && body["error"].is_object()) {  // the API's error body
      code = text(body["error"], "code");
      message = text(body["error"], "message");
    } else {  // the token endpoint's error body
      code = text(body, "error");
      message = text(body, "error_description");
      message = message.substr(0, message.find_first_of("\r\n"));
    }
  } catch (const json::exception&) {
  }
  std::string detail = std::string(what) + ": Graph answered " + std::to_string(res.status);
  if (!code.empty()) detail += " " + core::secrets::quote(code, 100);
  // Graph's words may quote what the request carried (the token, the client secret) and be long:
  // masked and bounded here, so every log line and stored error made of them is (issue 31).
  if (!message.empty()) detail += ": " + core::secrets::quote(message, 500);
  return GraphError(res.status, code, detail);
}

GraphSettings read_graph_settings(core::config::Reader& env) {
  GraphSettings g;
  g.login_url = env.string("GRAPH_LOGIN_URL", g.login_url, "Microsoft identity platform (token endpoint) base URL");
  g.base_url = env.string("GRAPH_BASE_URL", g.base_url, "Microsoft Graph base URL");
  g.tenant_id = env.string("GRAPH_TENANT_ID", "", "Entra tenant id (unset: the mail platform is not configured)");
  g.client_id = env.string("GRAPH_CLIENT_ID", "", "app registration (client) id");
  g.client_secret = env.secret("GRAPH_CLIENT_SECRET", "app client secret");
  return g;
}

std::vector<std::string> GraphSettings::missing() const {
  std::vector<std::string> out;
  if (tenant_id.empty()) out.emplace_back("GRAPH_TENANT_ID");
  if (client_id.empty()) out.emplace_back("GRAPH_CLIENT_ID");
  if (client_secret.empty()) out.emplace_back("GRAPH_CLIENT_SECRET");
  return out;
}

MailMessage parse_message(const json& item) {
  MailMessage m;
  m.id = text(item, "id");
  if (m.id.empty()) throw GraphError(200, "InvalidResponse", "Graph returned a message without an id");
  m.internet_message_id = text(item, "internetMessageId");
  m.subject = text(item, "subject");
  if (item.contains("body") && item["body"].is_object()) m.body = text(item["body"], "content");
  if (m.body.empty()) m.body = text(item, "bodyPreview");
  if (item.contains("from") && item["from"].is_object() && item["from"].contains("emailAddress") &&
      item["from"]["emailAddress"].is_object()) {
    m.from_address = core::to_lower(text(item["from"]["emailAddress"], "address"));
    m.from_name = text(item["from"]["emailAddress"], "name");
  }
  const auto received = core::parse_rfc3339(text(item, "receivedDateTime"));
  if (!received)
    throw GraphError(200, "InvalidResponse", "Graph returned message " + m.id + " without a valid receivedDateTime");
  m.received_at = *received;
  m.parent_folder_id = text(item, "parentFolderId");
  m.has_attachments = item.value("hasAttachments", false) == true;
  if (item.contains("internetMessageHeaders") && item["internetMessageHeaders"].is_array())
    for (const auto& h : item["internetMessageHeaders"])
      if (h.is_object()) m.headers.emplace(core::to_lower(text(h, "name")), text(h, "value"));
  return m;
}

GraphClient::GraphClient(boost::asio::any_io_executor executor, GraphSettings settings, core::http::Outcome outcome)
    : settings_(std::move(settings)), http_(std::move(executor), settings_.http), outcome_(std::move(outcome)) {}

std::string GraphClient::user_url(const std::string& mailbox) const {
  return settings_.base_url + "/v1.0/users/" + core::url_encode(mailbox);
}

core::async::Semaphore& GraphClient::slots(const std::string& mailbox) {
  std::lock_guard lock(mutex_);
  auto& s = slots_[mailbox];
  if (!s) s = std::make_unique<core::async::Semaphore>(settings_.max_concurrent);
  return *s;
}

awaitable<std::string> GraphClient::token() {
  auto fresh = [this]() -> std::optional<std::string> {
    std::lock_guard lock(mutex_);
    if (!token_.empty() && std::chrono::steady_clock::now() + kTokenMargin < token_expires_) return token_;
    return std::nullopt;
  };
  if (auto t = fresh()) co_return *t;
  auto permit = co_await token_refresh_.acquire();  // one refresh at a time; the others reuse it
  if (auto t = fresh()) co_return *t;

  OutboundRequest req;
  req.method = "POST";
  req.url = settings_.login_url + "/" + core::url_encode(settings_.tenant_id) + "/oauth2/v2.0/token";
  req.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
  req.body = "client_id=" + core::url_encode(settings_.client_id) +
             "&client_secret=" + core::url_encode(settings_.client_secret) + "&scope=" + core::url_encode(kScope) +
             "&grant_type=client_credentials";
  req.retry_transport_errors = true;  // asking again for a token changes nothing
  OutboundResponse res;
  try {
    res = co_await http_.send(std::move(req));
  } catch (const core::http::TransportError& e) {
    throw GraphError(0, "transport", std::string("token request: ") + e.what());
  }
  if (!res.ok()) throw error_from(res, "token request");
  json body;
  try {
    body = json::parse(res.body);
  } catch (const json::exception&) {
    throw GraphError(res.status, "InvalidResponse", "token request: the answer is not JSON");
  }
  const std::string access = text(body, "access_token");
  const auto& lifetime = body.contains("expires_in") ? body["expires_in"] : json();
  const std::int64_t seconds = lifetime.is_number_integer() ? lifetime.get<std::int64_t>()
                               : lifetime.is_string()       ? core::parse_int64(lifetime.get<std::string>()).value_or(0)
                                                            : 0;
  if (access.empty() || seconds <= 0)
    throw GraphError(res.status, "InvalidResponse", "token request: no access_token or expires_in in the answer");
  core::secrets::remember(access);  // masked in every log line from now on
  std::lock_guard lock(mutex_);
  token_ = access;
  token_expires_ = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  co_return token_;
}

awaitable<OutboundResponse> GraphClient::authorized(OutboundRequest request) {
  for (int attempt = 1;; ++attempt) {
    const std::string bearer = co_await token();
    OutboundRequest r = request;
    r.headers.emplace_back("Authorization", "Bearer " + bearer);
    const std::string what = r.method + " " + r.url.substr(0, r.url.find('?'));
    OutboundResponse res;
    try {
      res = co_await http_.send(std::move(r));
    } catch (const core::http::TransportError& e) {
      throw GraphError(0, "transport", what + ": " + e.what());
    }
    if (res.status == 401 && attempt == 1) {  // the token was revoked or expired early: renew once
      std::lock_guard lock(mutex_);
      if (token_ == bearer) token_.clear();
      continue;
    }
    co_return res;
  }
}

awaitable<OutboundResponse> GraphClient::call(const std::string& mailbox, OutboundRequest request) {
  auto permit = co_await slots(mailbox).acquire();
  request.headers.emplace_back("Prefer", "IdType=\"ImmutableId\"");
  request.headers.emplace_back("Prefer", "outlook.body-content-type=\"text\"");
  request.headers.emplace_back("Accept", "application/json");
  if (!request.body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  // The request alone is observed (not the wait for the mailbox's slot).
  co_return co_await core::http::observed<OutboundResponse>(outcome_, [&]() -> awaitable<OutboundResponse> {
    const std::string what = request.method + " " + request.url.substr(0, request.url.find('?'));
    auto res = co_await authorized(std::move(request));
    if (!res.ok()) throw error_from(res, what);
    co_return res;
  });
}

awaitable<std::vector<MailMessage>> GraphClient::list(const std::string& mailbox, std::string url, std::size_t limit) {
  std::vector<MailMessage> out;
  for (int page = 0; !url.empty() && out.size() < limit; ++page) {
    if (page == kMaxPages) throw GraphError(200, "InvalidResponse", "Graph kept sending @odata.nextLink");
    OutboundRequest req;
    req.url = url;
    const auto res = co_await call(mailbox, std::move(req));
    json body;
    try {
      body = json::parse(res.body);
    } catch (const json::exception&) {
      throw GraphError(res.status, "InvalidResponse", "Graph returned a message page that is not JSON");
    }
    if (!body.contains("value") || !body["value"].is_array())
      throw GraphError(res.status, "InvalidResponse", "Graph returned a message page without a value array");
    for (const auto& item : body["value"])
      if (out.size() < limit) out.push_back(parse_message(item));
    url = text(body, "@odata.nextLink");  // followed verbatim
  }
  co_return out;
}

awaitable<std::vector<MailMessage>> GraphClient::unread_inbox(std::string mailbox, core::Timestamp since) {
  const std::string filter = "isRead eq false and receivedDateTime ge " + graph_time(since);
  std::string url = user_url(mailbox) + "/mailFolders/inbox/messages?$filter=" + core::url_encode(filter) +
                    "&$select=" + std::string(kSelectTriage) + "&$top=" + std::to_string(settings_.page_size);
  co_return co_await list(mailbox, std::move(url), SIZE_MAX);
}

awaitable<std::vector<MailMessage>> GraphClient::search(std::string mailbox, std::string query, std::size_t limit) {
  // $search takes a quoted KQL string; a quote inside it is escaped with a backslash.
  std::string quoted = "\"";
  for (const char c : query) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  quoted += '"';
  std::string url =
      user_url(mailbox) + "/messages?$search=" + core::url_encode(quoted) + "&$select=" + std::string(kSelectSearch) +
      "&$top=" + std::to_string(std::min<std::size_t>(limit, static_cast<std::size_t>(settings_.page_size)));
  co_return co_await list(mailbox, std::move(url), limit);
}

awaitable<std::string> GraphClient::folder_id(const std::string& mailbox, const std::string& well_known) {
  const std::string key = mailbox + "/" + well_known;
  {
    std::lock_guard lock(mutex_);
    if (const auto it = folder_ids_.find(key); it != folder_ids_.end()) co_return it->second;
  }
  OutboundRequest req;
  req.url = user_url(mailbox) + "/mailFolders/" + core::url_encode(well_known) + "?$select=id";
  const auto res = co_await call(mailbox, std::move(req));
  const std::string id = text(res.json(), "id");
  if (id.empty())
    throw GraphError(res.status, "InvalidResponse", "Graph returned folder " + well_known + " without an id");
  std::lock_guard lock(mutex_);
  folder_ids_[key] = id;
  co_return id;
}

awaitable<std::vector<MailMessage>> GraphClient::from_sender_before(std::string mailbox, std::string address,
                                                                    core::Timestamp before) {
  const std::string deleted = co_await folder_id(mailbox, "deleteditems");
  const std::string filter =
      "from/emailAddress/address eq " + odata_string(address) + " and receivedDateTime lt " + graph_time(before);
  std::string url = user_url(mailbox) + "/messages?$filter=" + core::url_encode(filter) +
                    "&$select=" + std::string(kSelectPurge) + "&$top=" + std::to_string(settings_.page_size);
  auto all = co_await list(mailbox, std::move(url), SIZE_MAX);
  std::erase_if(all, [&](const MailMessage& m) { return m.parent_folder_id == deleted; });
  co_return all;
}

awaitable<void> GraphClient::mark_read(std::string mailbox, std::string id) {
  OutboundRequest req;
  req.method = "PATCH";
  req.url = user_url(mailbox) + "/messages/" + core::url_encode(id);
  req.body = R"({"isRead":true})";
  co_await call(mailbox, std::move(req));
}

awaitable<void> GraphClient::flag(std::string mailbox, std::string id) {
  OutboundRequest req;
  req.method = "PATCH";
  req.url = user_url(mailbox) + "/messages/" + core::url_encode(id);
  req.body = R"({"flag":{"flagStatus":"flagged"}})";
  co_await call(mailbox, std::move(req));
}

awaitable<void> GraphClient::move(std::string mailbox, std::string id, FolderRef folder) {
  OutboundRequest req;
  req.method = "POST";
  req.url = user_url(mailbox) + "/messages/" + core::url_encode(id) + "/move";
  req.body = json{{"destinationId", folder}}.dump();
  co_await call(mailbox, std::move(req));
}

awaitable<void> GraphClient::send_mail(std::string from_mailbox, OutgoingMail mail) {
  if (mail.content_type != "Text" && mail.content_type != "HTML")
    throw GraphError(0, "InvalidRequest", "sendMail: content_type must be Text or HTML, not " + mail.content_type);
  json to = json::array();
  for (const auto& address : mail.to) to.push_back({{"emailAddress", {{"address", address}}}});
  OutboundRequest req;
  req.method = "POST";
  req.url = user_url(from_mailbox) + "/sendMail";
  req.body = json{
      {"message",
       {{"subject", mail.subject},
        {"body", {{"contentType", mail.content_type}, {"content", mail.body}}},
        {"toRecipients", std::move(to)}}},
      {"saveToSentItems",
       false}}.dump(-1, ' ', false, json::error_handler_t::replace);
  co_await call(from_mailbox, std::move(req));
}

awaitable<void> GraphClient::remove(std::string mailbox, std::string id) {
  OutboundRequest req;
  req.method = "DELETE";
  req.url = user_url(mailbox) + "/messages/" + core::url_encode(id);
  co_await call(mailbox, std::move(req));
}

}  // namespace core::graph
