#include "sandbox/graph_fake.hpp"

#include "core/async/sleep.hpp"
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

GraphFake::GraphFake(GraphFakeOptions options)
    : options_(std::move(options)), report_lag_days_(options_.report_lag_days) {}

void GraphFake::reset() {
  std::lock_guard lock(mutex_);
  mailboxes_.clear();
  denied_.clear();
  mail_send_ = true;
  sent_.clear();
  tokens_.clear();
  faults_ = {};
  directory_.clear();
  photos_.clear();
  usage_.clear();
  downloads_.clear();
  report_lag_days_ = options_.report_lag_days;
  requests_ = tokens_issued_ = report_requests_ = photo_requests_ = downloads_served_ = downloads_with_token_ = 0;
  download_errors_ = 0;
  echoes_.clear();
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
  download_errors_ = faults.download_errors;
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
          {"mail_send_granted", mail_send_},
          {"report_requests", report_requests_},
          {"photo_requests", photo_requests_},
          {"downloads", downloads_served_},
          {"downloads_with_token", downloads_with_token_},
          {"echoed", echoes_.count()},
          {"directory_users", directory_.size()}};
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

awaitable<std::optional<Response>> GraphFake::gate(Request& req) {
  GraphFaults faults;
  bool authorised = false;
  const std::string token(req.header("authorization"));
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    if (token.starts_with("Bearer ")) {
      const auto it = tokens_.find(token.substr(7));
      authorised = it != tokens_.end() && it->second > std::chrono::steady_clock::now();
    }
    faults = faults_;
    if (!faults_.method.empty() && faults_.method != req.method_name)
      faults.throttle = faults.server_errors = 0;
    else if (faults_.throttle > 0)
      --faults_.throttle;
    else if (faults_.server_errors > 0)
      --faults_.server_errors;
  }
  co_await core::async::sleep_for(faults.latency);
  // With the echo switch, an error quotes the bearer token received (echo.hpp).
  const auto said = [&](std::string message) {
    return echoes_.message(faults.echo, std::move(message),
                           {{"Authorization", token.substr(std::min<std::size_t>(token.size(), 7))}});
  };
  if (!authorised)
    co_return graph_error(
        401, "InvalidAuthenticationToken",
        said(token.empty() ? "Access token is empty." : "Access token validation failure. Invalid audience."));
  if (faults.throttle > 0) {
    auto res = graph_error(429, "TooManyRequests", "Application is over its MailboxConcurrency limit.");
    res.headers.set("Retry-After", std::to_string(faults.retry_after));
    co_return res;
  }
  if (faults.server_errors > 0)
    co_return graph_error(faults.status, faults.status == 503 ? "ServiceUnavailable" : "UnknownError",
                          said("The service is temporarily unavailable."));
  co_return std::nullopt;
}

void GraphFake::install(core::http::Router& router) {
  install_token(router);      // graph_fake_token.cpp
  install_messages(router);   // graph_fake_messages.cpp
  install_control(router);    // graph_fake_control.cpp
  install_directory(router);  // graph_fake_directory.cpp
}

}  // namespace sandbox
