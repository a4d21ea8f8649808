#include "sandbox/graph_fake.hpp"

#include "core/util/strings.hpp"
#include "sandbox/demo_mail.hpp"
#include "sandbox/graph_error.hpp"

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

}  // namespace

// The body Graph answers an error with.
Response graph_error(int status, std::string code, std::string message) {
  return Response::json(
      {{"error",
        {{"code", std::move(code)},
         {"message", std::move(message)},
         {"innerError", {{"date", core::format_rfc3339(core::now())}, {"request-id", core::random_uuid()}}}}}},
      static_cast<Status>(status));
}

GraphFake::GraphFake(GraphFakeOptions options) : options_(std::move(options)) {}

void GraphFake::reset() {
  std::lock_guard lock(mutex_);
  mailboxes_.clear();
  denied_.clear();
  mail_send_ = true;
  sent_.clear();
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

void GraphFake::deny_access(const std::string& mailbox, bool denied) {
  std::lock_guard lock(mutex_);
  if (denied)
    denied_.insert(core::to_lower(mailbox));
  else
    denied_.erase(core::to_lower(mailbox));
}

void GraphFake::grant_mail_send(bool granted) {
  std::lock_guard lock(mutex_);
  mail_send_ = granted;
}

std::vector<SentMail> GraphFake::sent() const {
  std::lock_guard lock(mutex_);
  return sent_;
}

void GraphFake::set_faults(GraphFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = std::move(faults);
}

json GraphFake::stats() const {
  std::lock_guard lock(mutex_);
  json boxes = json::object();
  for (const auto& [name, box] : mailboxes_)
    boxes[name] = {{"messages", box.messages.size()},
                   {"deleted", box.deleted.size()},
                   {"most_in_flight", box.most_in_flight},
                   {"access_denied", denied_.contains(name)}};
  return {{"requests", requests_},
          {"tokens_issued", tokens_issued_},
          {"mailboxes", boxes},
          {"sent", sent_.size()},
          {"mail_send_granted", mail_send_}};
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
  install_token(router);     // graph_fake_token.cpp
  install_messages(router);  // graph_fake_messages.cpp
  install_control(router);   // graph_fake_control.cpp
}

}  // namespace sandbox
