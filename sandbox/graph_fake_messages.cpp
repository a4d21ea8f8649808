// Graph's mail API: message lists with $filter/$select/$top and nextLink paging, folders by
// well-known name, GET, PATCH, move and DELETE, and sendMail, behind the bearer token and the fault
// switches.
#include "sandbox/graph_fake.hpp"

#include "core/http/bearer.hpp"
#include "core/util/strings.hpp"
#include "sandbox/graph_error.hpp"
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

bool prefers(const Request& req, std::string_view what) {
  for (const auto& field : req.headers)
    if (core::iequals(field.name_string(), "prefer") && field.value().find(what) != std::string_view::npos) return true;
  return false;
}

// A $search value: `"term term OR prop:value"` (KQL as Graph takes it on messages). Groups joined by OR,
// each a list of terms that must all match; nullopt when the value is not in double quotes.
struct SearchTerm {
  std::string property;  // empty: free text (from, subject, body)
  std::string value;     // lower case
};
using Search = std::vector<std::vector<SearchTerm>>;

std::optional<Search> parse_search(std::string_view raw) {
  const auto value = core::trim(raw);
  if (value.size() < 2 || value.front() != '"' || value.back() != '"') return std::nullopt;
  static const std::vector<std::string> kProperties{"from", "subject", "body",       "to",
                                                    "cc",   "bcc",     "recipients", "participants"};
  Search groups(1);
  for (const auto word : core::split(value.substr(1, value.size() - 2), ' ')) {
    if (word.empty() || word == "AND") continue;
    if (word == "OR") {
      if (!groups.back().empty()) groups.emplace_back();
      continue;
    }
    SearchTerm term{"", core::to_lower(word)};
    if (const auto colon = word.find(':'); colon != std::string_view::npos) {
      const auto property = core::to_lower(word.substr(0, colon));
      if (std::find(kProperties.begin(), kProperties.end(), property) != kProperties.end()) {
        term.property = property;
        term.value = core::to_lower(word.substr(colon + 1));
        if (term.value.size() >= 2 && (term.value.front() == '\'' || term.value.front() == '"'))
          term.value = term.value.substr(1, term.value.size() - 2);
      }
    }
    groups.back().push_back(std::move(term));
  }
  if (groups.back().empty() && groups.size() > 1) groups.pop_back();
  return groups;
}

bool search_matches(const Search& search, const FakeMessage& m, const std::string& mailbox) {
  const auto has = [](const std::string& text, const std::string& value) {
    return core::to_lower(text).find(value) != std::string::npos;
  };
  const auto term_matches = [&](const SearchTerm& t) {
    const bool from = has(m.from_address, t.value) || has(m.from_name, t.value);
    const bool to_me = has(mailbox, t.value);  // every message here was delivered to the mailbox
    if (t.property.empty()) return from || has(m.subject, t.value) || has(m.body, t.value);
    if (t.property == "from") return from;
    if (t.property == "subject") return has(m.subject, t.value);
    if (t.property == "body") return has(m.body, t.value);
    if (t.property == "participants") return from || to_me;
    return to_me;  // to, cc, bcc, recipients
  };
  return std::any_of(search.begin(), search.end(), [&](const std::vector<SearchTerm>& group) {
    return std::all_of(group.begin(), group.end(), term_matches);
  });
}

// One recipient list of a sendMail message ([{emailAddress: {address, name?}}]).
struct Recipients {
  bool is_list = true;  // false: present but not an array
  std::vector<SentMail::Recipient> list;
  std::optional<std::string> invalid;  // the first address that is not an e-mail address
};

Recipients recipients(const json& message, const char* name) {
  Recipients out;
  const auto it = message.find(name);
  if (it == message.end() || it->is_null()) return out;
  if (!it->is_array()) {
    out.is_list = false;
    return out;
  }
  for (const auto& entry : *it) {
    SentMail::Recipient r;
    const auto email = entry.is_object() ? entry.find("emailAddress") : entry.end();
    if (entry.is_object() && email != entry.end() && email->is_object()) {
      if (const auto a = email->find("address"); a != email->end() && a->is_string()) r.address = *a;
      if (const auto n = email->find("name"); n != email->end() && n->is_string()) r.name = *n;
    }
    if (!out.invalid && !core::is_email_address(r.address)) out.invalid = r.address;
    out.list.push_back(std::move(r));
  }
  return out;
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

void GraphFake::install_messages(core::http::Router& router) {
  // Every API route: the gate (bearer token, faults, latency), the mailbox's in-flight count.
  using Api = std::function<awaitable<Response>(Request&, const std::string& mailbox)>;
  auto api = [this](Api handler) {
    return [this, handler = std::move(handler)](Request& req) -> awaitable<Response> {
      const std::string mailbox = core::to_lower(std::string(req.param("mailbox")));
      Call call(*this, mailbox);
      if (auto refused = co_await gate(req)) co_return std::move(*refused);
      bool known = false, denied = false;
      {
        std::lock_guard lock(mutex_);
        known = mailboxes_.contains(mailbox);
        denied = denied_.contains(mailbox);
      }
      if (denied) co_return graph_error(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.");
      if (!known) co_return graph_error(404, "ErrorInvalidUser", "The requested user '" + mailbox + "' is invalid.");
      co_return co_await handler(req, mailbox);
    };
  };

  auto list = [this](Request& req, const std::string& mailbox, std::optional<std::string> folder) -> Response {
    // $search: KQL over from, subject and body; never with $filter or $orderby.
    std::optional<Search> search;
    if (const auto raw = req.query.get("$search")) {
      if (req.query.has("$filter"))
        return graph_error(400, "ErrorInvalidUrlQuery",
                           "The query parameter '$filter' is not supported with '$search'.");
      if (req.query.has("$orderby"))
        return graph_error(400, "ErrorInvalidUrlQuery",
                           "The query parameter '$orderBy' is not supported with '$search'.");
      search = parse_search(*raw);
      if (!search)
        return graph_error(
            400, "BadRequest",
            "Syntax error: the $search value must be enclosed in double quotes, as in $search=\"term\".");
    }
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
            std::all_of(tests.begin(), tests.end(), [&](const auto& t) { return t(m); }) &&
            (!search || search_matches(*search, m, mailbox)))
          matching.push_back(m);
    }
    std::sort(matching.begin(), matching.end(), [](const FakeMessage& a, const FakeMessage& b) {
      return a.received_at != b.received_at ? a.received_at > b.received_at : a.id > b.id;
    });
    if (search && matching.size() > 1000) matching.resize(1000);  // "A $search request returns up to 1,000 results"
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

  // sendMail: 202 and nothing in the body; what was sent is in sent_ (graph_fake.hpp).
  router.post(
      "/v1.0/users/{mailbox}/sendMail", api([this](Request& req, const std::string& mb) -> awaitable<Response> {
        GraphFaults faults;
        bool granted = false;
        {
          std::lock_guard lock(mutex_);
          granted = mail_send_;
          faults = faults_;
        }
        if (!granted)
          co_return graph_error(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.");
        const auto body = json::parse(req.body, nullptr, false);
        if (!body.is_object()) co_return graph_error(400, "BadRequest", "Empty Payload. JSON content expected.");
        const auto message = body.find("message");
        if (message == body.end() || !message->is_object())
          co_return graph_error(400, "BadRequest", "The parameter 'message' is missing or not an object.");
        SentMail sent;
        sent.from = mb;
        if (const auto subject = message->find("subject"); subject != message->end() && subject->is_string())
          sent.subject = *subject;
        sent.content_type = "Text";
        if (const auto b = message->find("body"); b != message->end() && b->is_object()) {
          if (const auto type = b->find("contentType"); type != b->end()) {
            const std::string t = type->is_string() ? type->get<std::string>() : "";
            if (!core::iequals(t, "text") && !core::iequals(t, "html"))
              co_return graph_error(400, "RequestBodyRead",
                                    "Requested value '" + t + "' was not found in the enum 'bodyType'.");
            sent.content_type = core::iequals(t, "html") ? "HTML" : "Text";
          }
          if (const auto content = b->find("content"); content != b->end() && content->is_string())
            sent.body = *content;
        }
        if (const auto save = body.find("saveToSentItems"); save != body.end()) {
          if (!save->is_boolean())
            co_return graph_error(400, "BadRequest", "Invalid value for parameter 'saveToSentItems'.");
          sent.save_to_sent_items = save->get<bool>();
        }
        auto to = recipients(*message, "toRecipients");
        auto cc = recipients(*message, "ccRecipients");
        auto bcc = recipients(*message, "bccRecipients");
        if (!to.is_list || !cc.is_list || !bcc.is_list)
          co_return graph_error(400, "BadRequest", "The recipient lists must be arrays of recipients.");
        if (to.list.empty() && cc.list.empty() && bcc.list.empty())
          co_return graph_error(
              400, "ErrorInvalidRecipients",
              "At least one recipient is not valid., A message can't be sent because it contains no recipients.");
        for (const auto* list : {&to, &cc, &bcc})
          if (list->invalid)
            co_return graph_error(400, "ErrorInvalidRecipients",
                                  "At least one recipient is not valid., Recipient '" + *list->invalid +
                                      "' is not resolved. All recipients must be resolved before a message "
                                      "can be submitted.");
        if (faults.send_fail_status != 0) {
          const auto bearer = core::http::bearer_token(req.header("authorization"));
          co_return graph_error(faults.send_fail_status, faults.send_fail_code,
                                echoes_.message(faults.echo,
                                                faults.send_fail_message.empty() ? "The message could not be sent."
                                                                                 : faults.send_fail_message,
                                                {{"Authorization", bearer ? std::string(*bearer) : std::string()}}));
        }
        sent.to = std::move(to.list);
        sent.cc = std::move(cc.list);
        sent.bcc = std::move(bcc.list);
        sent.sent_at = core::now();
        if (sent.save_to_sent_items) {
          FakeMessage copy;
          copy.subject = sent.subject;
          copy.body = sent.body;
          copy.from_address = mb;
          copy.folder = "sentitems";
          copy.is_read = true;
          copy.received_at = sent.sent_at;
          add_message(mb, std::move(copy));
        }
        {
          std::lock_guard lock(mutex_);
          sent_.push_back(std::move(sent));
        }
        co_return Response::empty(Status::accepted);
      }));
}

}  // namespace sandbox
