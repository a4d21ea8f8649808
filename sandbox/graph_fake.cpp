#include "sandbox/graph_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/util/strings.hpp"
#include "sandbox/demo_mail.hpp"
#include "sandbox/odata_filter.hpp"

#include <algorithm>
#include <functional>
#include <optional>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

const std::vector<std::string> kWellKnownFolders{"inbox",        "archive",   "junkemail",
                                                 "deleteditems", "sentitems", "drafts"};
const std::vector<std::string> kMessageProperties{"id",
                                                  "createdDateTime",
                                                  "receivedDateTime",
                                                  "sentDateTime",
                                                  "hasAttachments",
                                                  "internetMessageId",
                                                  "subject",
                                                  "bodyPreview",
                                                  "isRead",
                                                  "parentFolderId",
                                                  "from",
                                                  "sender",
                                                  "flag",
                                                  "categories",
                                                  "body",
                                                  "internetMessageHeaders"};

Response graph_error(int status, std::string code, std::string message) {
  return Response::json(
      {{"error",
        {{"code", std::move(code)},
         {"message", std::move(message)},
         {"innerError", {{"date", core::format_rfc3339(core::now())}, {"request-id", core::random_uuid()}}}}}},
      static_cast<Status>(status));
}

// The token endpoint's error shape (Microsoft identity platform).
Response identity_error(std::string error, std::string description, int code) {
  return Response::json({{"error", std::move(error)},
                         {"error_description", "AADSTS" + std::to_string(code) + ": " + description},
                         {"error_codes", {code}},
                         {"trace_id", core::random_uuid()},
                         {"correlation_id", core::random_uuid()}},
                        Status::bad_request);
}

std::map<std::string, std::string> parse_form(std::string_view body) {
  std::map<std::string, std::string> out;
  for (auto piece : core::split(body, '&')) {
    if (piece.empty()) continue;
    const auto eq = piece.find('=');
    auto key = core::url_decode(piece.substr(0, eq), true);
    auto value = core::url_decode(eq == std::string_view::npos ? "" : piece.substr(eq + 1), true);
    if (key && value) out[*key] = *value;
  }
  return out;
}

bool prefers(const Request& req, std::string_view what) {
  for (const auto& field : req.headers)
    if (core::iequals(field.name_string(), "prefer") && field.value().find(what) != std::string_view::npos) return true;
  return false;
}

std::string query_without(std::string_view target, std::string_view drop) {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return {};
  std::string out;
  for (auto piece : core::split(target.substr(q + 1), '&')) {
    const auto key = core::url_decode(piece.substr(0, piece.find('=')), true);
    if (piece.empty() || (key && *key == drop)) continue;
    out += (out.empty() ? "" : "&") + std::string(piece);
  }
  return out;
}

}  // namespace

struct GraphFake::Call {
  GraphFake& fake;
  std::string mailbox;
  Call(GraphFake& f, std::string mb) : fake(f), mailbox(std::move(mb)) {
    std::lock_guard lock(fake.mutex_);
    auto it = fake.mailboxes_.find(mailbox);
    if (it == fake.mailboxes_.end()) return;
    it->second.most_in_flight = std::max(it->second.most_in_flight, ++it->second.in_flight);
  }
  ~Call() {
    std::lock_guard lock(fake.mutex_);
    auto it = fake.mailboxes_.find(mailbox);
    if (it != fake.mailboxes_.end()) --it->second.in_flight;
  }
};

GraphFake::GraphFake(GraphFakeOptions options) : options_(std::move(options)) {}

void GraphFake::reset() {
  std::lock_guard lock(mutex_);
  mailboxes_.clear();
  tokens_.clear();
  faults_ = {};
  requests_ = tokens_issued_ = 0;
}

void GraphFake::create_mailbox(const std::string& mailbox) {
  std::lock_guard lock(mutex_);
  mailboxes_[core::to_lower(mailbox)];
}

std::string GraphFake::new_id() {
  // Graph ids are long opaque base64url strings; these keep the shape without meaning anything.
  return "AAMkAGI2TG93AAA" + core::random_hex(12) + "-" + std::to_string(next_id_++) + "AAA=";
}

std::string GraphFake::add_message(const std::string& mailbox, FakeMessage message) {
  std::lock_guard lock(mutex_);
  if (message.id.empty()) message.id = new_id();
  if (message.internet_message_id.empty())
    message.internet_message_id =
        "<" + core::random_hex(8) + "@" + message.from_address.substr(message.from_address.find('@') + 1) + ">";
  auto& box = mailboxes_[core::to_lower(mailbox)];
  box.messages.push_back(message);
  return message.id;
}

void GraphFake::seed(const std::string& mailbox, int count, std::uint32_t seed, bool unread) {
  create_mailbox(mailbox);
  const auto now = core::now();
  for (auto& m : demo_mail(count, seed, now)) {
    if (unread) {  // a whole inbox for a processing run: all unread, all in the last week
      m.is_read = false;
      m.received_at = now - (now - m.received_at) / 3;
    }
    add_message(mailbox, std::move(m));
  }
}

std::vector<FakeMessage> GraphFake::messages(const std::string& mailbox) const {
  std::lock_guard lock(mutex_);
  const auto it = mailboxes_.find(core::to_lower(mailbox));
  return it == mailboxes_.end() ? std::vector<FakeMessage>{} : it->second.messages;
}

std::vector<FakeMessage> GraphFake::deleted(const std::string& mailbox) const {
  std::lock_guard lock(mutex_);
  const auto it = mailboxes_.find(core::to_lower(mailbox));
  return it == mailboxes_.end() ? std::vector<FakeMessage>{} : it->second.deleted;
}

void GraphFake::revoke_tokens() {
  std::lock_guard lock(mutex_);
  tokens_.clear();
}

void GraphFake::set_faults(GraphFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

json GraphFake::stats() const {
  std::lock_guard lock(mutex_);
  json boxes = json::object();
  for (const auto& [name, box] : mailboxes_)
    boxes[name] = {
        {"messages", box.messages.size()}, {"deleted", box.deleted.size()}, {"most_in_flight", box.most_in_flight}};
  return {{"requests", requests_}, {"tokens_issued", tokens_issued_}, {"mailboxes", boxes}};
}

std::string GraphFake::folder_id(const std::string& mailbox, const std::string& name) const {
  // Opaque, stable per mailbox and folder, like the real ids.
  return "AQMkADAwATM0MDAAFolder" + std::to_string(std::hash<std::string>{}(mailbox + "/" + name) % 1000000007) +
         "AAA=";
}

std::optional<std::string> GraphFake::folder_name(const std::string& mailbox, const std::string& ref) const {
  for (const auto& name : kWellKnownFolders)
    if (core::iequals(ref, name) || ref == folder_id(mailbox, name)) return name;
  return std::nullopt;
}

json GraphFake::render(const std::string& mailbox, const FakeMessage& m, bool text_body) const {
  const auto received =
      core::format_rfc3339(std::chrono::floor<std::chrono::seconds>(m.received_at)).substr(0, 19) + "Z";
  json headers = json::array();
  for (const auto& [name, value] : m.headers) headers.push_back({{"name", name}, {"value", value}});
  const json address = {{"emailAddress", {{"name", m.from_name}, {"address", m.from_address}}}};
  return {{"@odata.etag", "W/\"CQAAABYAAAC" + std::to_string(m.id.size()) + "\""},
          {"id", m.id},
          {"createdDateTime", received},
          {"receivedDateTime", received},
          {"sentDateTime", received},
          {"hasAttachments", m.has_attachments},
          {"internetMessageId", m.internet_message_id},
          {"subject", m.subject},
          {"bodyPreview", m.body.substr(0, 255)},
          {"isRead", m.is_read},
          {"parentFolderId", folder_id(mailbox, m.folder)},
          {"from", m.from_address.empty() ? json(nullptr) : address},
          {"sender", m.from_address.empty() ? json(nullptr) : address},
          {"flag", {{"flagStatus", m.flag}}},
          {"categories", json::array()},
          {"body", text_body
                       ? json{{"contentType", "text"}, {"content", m.body}}
                       : json{{"contentType", "html"}, {"content", "<html><body><p>" + m.body + "</p></body></html>"}}},
          {"internetMessageHeaders", headers}};
}

void GraphFake::install(core::http::Router& router) {
  // --- the identity platform's token endpoint ---
  router.post("/{tenant}/oauth2/v2.0/token", [this](Request& req) -> awaitable<Response> {
    auto form = parse_form(req.body);
    if (form["grant_type"] != "client_credentials")
      co_return identity_error("unsupported_grant_type",
                               "The provided value for the input parameter 'grant_type' is not valid.", 70003);
    if (!form["scope"].ends_with("/.default"))
      co_return identity_error("invalid_scope", "The provided value for the input parameter 'scope' is not valid.",
                               70011);
    if (form["client_id"] != options_.client_id)
      co_return identity_error(
          "unauthorized_client",
          "Application with identifier '" + form["client_id"] + "' was not found in the directory.", 700016);
    if (!core::constant_time_equals(form["client_secret"], options_.client_secret))
      co_return identity_error("invalid_client", "Invalid client secret provided.", 7000215);
    const std::string token = "eyJ0eXAiOiJKV1QiLCJub25jZSI6" + core::random_hex(24);
    {
      std::lock_guard lock(mutex_);
      tokens_[token] = std::chrono::steady_clock::now() + options_.token_lifetime;
      ++tokens_issued_;
    }
    co_return Response::json({{"token_type", "Bearer"},
                              {"expires_in", options_.token_lifetime.count()},
                              {"ext_expires_in", options_.token_lifetime.count()},
                              {"access_token", token}});
  });

  // Every API route: bearer token, faults, latency, the mailbox's in-flight count.
  using Api = std::function<awaitable<Response>(Request&, const std::string& mailbox)>;
  auto api = [this](Api handler) {
    return [this, handler = std::move(handler)](Request& req) -> awaitable<Response> {
      const std::string mailbox = core::to_lower(std::string(req.param("mailbox")));
      Call call(*this, mailbox);
      GraphFaults faults;
      bool authorised = false, known = false;
      std::string token(req.header("authorization"));
      {
        std::lock_guard lock(mutex_);
        ++requests_;
        if (token.starts_with("Bearer ")) {
          const auto it = tokens_.find(token.substr(7));
          authorised = it != tokens_.end() && it->second > std::chrono::steady_clock::now();
        }
        known = mailboxes_.contains(mailbox);
        faults = faults_;
        if (!faults_.method.empty() && faults_.method != req.method_name)
          faults.throttle = faults.server_errors = 0;
        else if (faults_.throttle > 0)
          --faults_.throttle;
        else if (faults_.server_errors > 0)
          --faults_.server_errors;
      }
      co_await core::async::sleep_for(faults.latency);
      if (!authorised)
        co_return graph_error(
            401, "InvalidAuthenticationToken",
            token.empty() ? "Access token is empty." : "Access token validation failure. Invalid audience.");
      if (faults.throttle > 0) {
        auto res = graph_error(429, "TooManyRequests", "Application is over its MailboxConcurrency limit.");
        res.headers.set("Retry-After", std::to_string(faults.retry_after));
        co_return res;
      }
      if (faults.server_errors > 0)
        co_return graph_error(faults.status, faults.status == 503 ? "ServiceUnavailable" : "UnknownError",
                              "The service is temporarily unavailable.");
      if (!known) co_return graph_error(404, "ErrorInvalidUser", "The requested user '" + mailbox + "' is invalid.");
      co_return co_await handler(req, mailbox);
    };
  };

  auto list = [this](Request& req, const std::string& mailbox, std::optional<std::string> folder) -> Response {
    std::vector<std::function<bool(const FakeMessage&)>> tests;
    std::vector<std::string> filter_properties;
    try {
      if (const auto f = req.query.get("$filter"))
        for (const auto& clause : parse_filter(*f)) {
          tests.push_back(compile(clause));
          filter_properties.push_back(clause.property);
        }
    } catch (const FilterError& e) {
      return graph_error(400, "BadRequest", "Invalid filter clause: " + e.message);
    }
    if (const auto order = req.query.get("$orderby")) {
      std::size_t i = 0;
      for (auto piece : core::split(*order, ',')) {
        const std::string property(core::trim(piece.substr(0, piece.find(' '))));
        if (i >= filter_properties.size() || filter_properties[i++] != property)
          return graph_error(400, "InefficientFilter",
                             "The restriction or sort order is too complex for this operation.");
      }
    }
    std::vector<std::string> select;
    if (const auto s = req.query.get("$select"))
      for (auto piece : core::split(*s, ',')) {
        std::string name(core::trim(piece));
        if (std::find(kMessageProperties.begin(), kMessageProperties.end(), name) == kMessageProperties.end())
          return graph_error(400, "RequestBroker--ParseUri",
                             "Could not find a property named '" + name + "' on type 'microsoft.graph.message'.");
        select.push_back(name);
      }
    const auto top = core::parse_int64(req.query.get("$top").value_or("10"));
    const auto skip = core::parse_int64(req.query.get("$skip").value_or("0"));
    if (!top || *top < 1 || *top > 1000)
      return graph_error(400, "ErrorInvalidParameter", "$top must be between 1 and 1000.");
    if (!skip || *skip < 0) return graph_error(400, "ErrorInvalidParameter", "$skip must not be negative.");

    std::vector<FakeMessage> matching;
    {
      std::lock_guard lock(mutex_);
      for (const auto& m : mailboxes_[mailbox].messages)
        if ((!folder || m.folder == *folder) &&
            std::all_of(tests.begin(), tests.end(), [&](const auto& t) { return t(m); }))
          matching.push_back(m);
    }
    std::sort(matching.begin(), matching.end(), [](const FakeMessage& a, const FakeMessage& b) {
      return a.received_at != b.received_at ? a.received_at > b.received_at : a.id > b.id;
    });
    const bool text_body = prefers(req, "outlook.body-content-type=\"text\"");
    json value = json::array();
    for (auto i = static_cast<std::size_t>(*skip); i < matching.size() && i < static_cast<std::size_t>(*skip + *top);
         ++i) {
      json full = render(mailbox, matching[i], text_body);
      if (select.empty()) {
        value.push_back(std::move(full));
        continue;
      }
      json picked = {{"@odata.etag", full["@odata.etag"]}, {"id", full["id"]}};
      for (const auto& name : select) picked[name] = full[name];
      value.push_back(std::move(picked));
    }
    json page = {{"@odata.context", "https://graph.microsoft.com/v1.0/$metadata#users('" + mailbox + "')/messages"},
                 {"value", std::move(value)}};
    if (static_cast<std::size_t>(*skip + *top) < matching.size()) {
      std::string rest = query_without(req.target, "$skip");
      page["@odata.nextLink"] = "http://" + std::string(req.header("host")) + req.path + "?" + rest +
                                (rest.empty() ? "" : "&") + "$skip=" + std::to_string(*skip + *top);
    }
    return Response::json(page);
  };

  router.get("/v1.0/users/{mailbox}/messages", api([list](Request& req, const std::string& mb) -> awaitable<Response> {
               co_return list(req, mb, std::nullopt);
             }));
  router.get("/v1.0/users/{mailbox}/mailFolders/{folder}/messages",
             api([this, list](Request& req, const std::string& mb) -> awaitable<Response> {
               const auto folder = folder_name(mb, std::string(req.param("folder")));
               if (!folder)
                 co_return graph_error(404, "ErrorItemNotFound",
                                       "The specified folder could not be found in the store.");
               co_return list(req, mb, *folder);
             }));
  router.get("/v1.0/users/{mailbox}/mailFolders/{folder}",
             api([this](Request& req, const std::string& mb) -> awaitable<Response> {
               const auto folder = folder_name(mb, std::string(req.param("folder")));
               if (!folder)
                 co_return graph_error(404, "ErrorItemNotFound",
                                       "The specified folder could not be found in the store.");
               int total = 0, unread = 0;
               {
                 std::lock_guard lock(mutex_);
                 for (const auto& m : mailboxes_[mb].messages)
                   if (m.folder == *folder) ++total, unread += m.is_read ? 0 : 1;
               }
               co_return Response::json({{"id", folder_id(mb, *folder)},
                                         {"displayName", *folder},
                                         {"parentFolderId", folder_id(mb, "msgfolderroot")},
                                         {"childFolderCount", 0},
                                         {"unreadItemCount", unread},
                                         {"totalItemCount", total}});
             }));

  // Finds a message by id under the lock; answers 404 the way Graph does.
  using Edit = std::function<std::optional<Response>(std::vector<FakeMessage>&, std::vector<FakeMessage>::iterator)>;
  auto with_message = [this](Request& req, const std::string& mb, const Edit& edit) -> Response {
    const std::string id(req.param("id"));
    std::lock_guard lock(mutex_);
    auto& box = mailboxes_[mb];
    auto it = std::find_if(box.messages.begin(), box.messages.end(), [&](const FakeMessage& m) { return m.id == id; });
    if (it == box.messages.end())
      return graph_error(404, "ErrorItemNotFound", "The specified object was not found in the store.");
    if (auto res = edit(box.messages, it)) return std::move(*res);
    return Response::json(render(mb, *it, prefers(req, "outlook.body-content-type=\"text\"")));
  };

  router.get("/v1.0/users/{mailbox}/messages/{id}",
             api([with_message](Request& req, const std::string& mb) -> awaitable<Response> {
               co_return with_message(req, mb, [](auto&, auto) { return std::nullopt; });
             }));
  router.patch("/v1.0/users/{mailbox}/messages/{id}",
               api([with_message](Request& req, const std::string& mb) -> awaitable<Response> {
                 const auto body = json::parse(req.body, nullptr, false);
                 if (!body.is_object())
                   co_return graph_error(400, "BadRequest", "Empty Payload. JSON content expected.");
                 co_return with_message(req, mb, [&](auto&, auto it) -> std::optional<Response> {
                   if (body.contains("isRead")) {
                     if (!body["isRead"].is_boolean())
                       return graph_error(400, "BadRequest", "Invalid value for property 'isRead'.");
                     it->is_read = body["isRead"].get<bool>();
                   }
                   if (body.contains("flag")) {
                     const auto& flag = body["flag"];
                     const std::string status = flag.is_object() ? flag.value("flagStatus", "") : "";
                     if (status != "notFlagged" && status != "flagged" && status != "complete")
                       return graph_error(400, "BadRequest", "Invalid value for property 'flagStatus'.");
                     it->flag = status;
                   }
                   return std::nullopt;
                 });
               }));
  router.post("/v1.0/users/{mailbox}/messages/{id}/move",
              api([this, with_message](Request& req, const std::string& mb) -> awaitable<Response> {
                const auto body = json::parse(req.body, nullptr, false);
                const std::string destination = body.is_object() ? body.value("destinationId", "") : "";
                const auto folder = folder_name(mb, destination);
                if (!folder)
                  co_return graph_error(404, "ErrorItemNotFound",
                                        "The specified folder could not be found in the store.");
                const bool immutable = prefers(req, "IdType=\"ImmutableId\"");
                auto res = with_message(req, mb, [&](auto&, auto it) -> std::optional<Response> {
                  it->folder = *folder;
                  if (!immutable) it->id = new_id();  // without ImmutableId, a move changes the id
                  return std::nullopt;
                });
                if (res.status == Status::ok) res.status = Status::created;
                co_return res;
              }));
  router.del("/v1.0/users/{mailbox}/messages/{id}",
             api([this, with_message](Request& req, const std::string& mb) -> awaitable<Response> {
               co_return with_message(req, mb, [&](auto& messages, auto it) -> std::optional<Response> {
                 mailboxes_[mb].deleted.push_back(*it);
                 messages.erase(it);
                 return Response::empty();
               });
             }));

  // --- control routes ---
  router.post("/_sandbox/graph/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });
  router.post("/_sandbox/graph/mailboxes/{mailbox}", [this](Request& req) -> awaitable<Response> {
    create_mailbox(std::string(req.param("mailbox")));
    co_return Response::empty(Status::created);
  });
  router.post("/_sandbox/graph/mailboxes/{mailbox}/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
    if (!body.is_object()) co_return graph_error(400, "BadRequest", "body must be a JSON object");
    const int count = body.value("count", 300);
    if (count < 0 || count > 100'000) co_return graph_error(400, "BadRequest", "count must be 0..100000");
    seed(std::string(req.param("mailbox")), count, body.value("seed", 1u), body.value("unread", false));
    co_return Response::json({{"count", count}}, Status::created);
  });
  router.post("/_sandbox/graph/mailboxes/{mailbox}/messages", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) co_return graph_error(400, "BadRequest", "body must be a JSON object");
    FakeMessage m;
    m.subject = body.value("subject", "");
    m.body = body.value("body", "");
    m.from_address = body.value("from", "");
    m.from_name = body.value("from_name", "");
    m.folder = body.value("folder", "inbox");
    m.is_read = body.value("is_read", false);
    m.has_attachments = body.value("has_attachments", false);
    const auto received = core::parse_rfc3339(body.value("received_at", ""));
    m.received_at = received ? *received : core::now();
    if (body.contains("headers") && body["headers"].is_object())
      for (const auto& [name, value] : body["headers"].items())
        if (value.is_string()) m.headers.emplace_back(name, value.get<std::string>());
    co_return Response::json({{"id", add_message(std::string(req.param("mailbox")), std::move(m))}}, Status::created);
  });
  router.get("/_sandbox/graph/mailboxes/{mailbox}/messages", [this](Request& req) -> awaitable<Response> {
    const std::string mb = core::to_lower(std::string(req.param("mailbox")));
    json items = json::array();
    for (const auto& m : messages(mb)) {
      json j = render(mb, m, true);
      j["folder"] = m.folder;
      items.push_back(std::move(j));
    }
    json gone = json::array();
    for (const auto& m : deleted(mb)) gone.push_back(render(mb, m, true));
    co_return Response::json({{"messages", items}, {"deleted", gone}});
  });
  router.put("/_sandbox/graph/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) co_return graph_error(400, "BadRequest", "body must be a JSON object");
    GraphFaults f;
    f.throttle = body.value("throttle", 0);
    f.retry_after = body.value("retry_after", 1);
    f.server_errors = body.value("server_errors", 0);
    f.status = body.value("status", 503);
    f.latency = std::chrono::milliseconds(body.value("latency_ms", 0));
    f.method = body.value("method", "");
    set_faults(f);
    co_return Response::empty();
  });
  router.get("/_sandbox/graph/stats", [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });
}

}  // namespace sandbox
