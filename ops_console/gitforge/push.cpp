#include "ops_console/gitforge/push.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"

namespace ops_console::gitforge {

using core::http::Problem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxName = 255;  // a repository's full name, a ref, a pusher
constexpr std::size_t kSummaryCommits = 5;

std::optional<std::string> string_at(const json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// GitHub's pusher is {name, email}; Gitea's is a user: {login, username, full_name, email}.
std::optional<std::string> pusher_of(const json& payload) {
  const auto it = payload.find("pusher");
  if (it == payload.end()) return std::nullopt;
  for (const char* key : {"name", "login", "username"})
    if (auto name = string_at(*it, key); name && !name->empty()) return name->substr(0, kMaxName);
  return std::nullopt;
}

// One commit, or the problem with it. `at` names it: "commits[3]".
std::optional<Problem> read_commit(const json& c, const std::string& at, Commit& out) {
  if (!c.is_object()) return Problem::invalid_field(at, "must be an object");
  const auto id = string_at(c, "id");
  if (!id || id->size() < 7 || id->size() > 64 || !is_hex(*id))
    return Problem::invalid_field(at + ".id", "must be a commit id of 7 to 64 hex digits");
  const auto message = string_at(c, "message");
  if (!message) return Problem::invalid_field(at + ".message", "must be a string");
  out.id = core::to_lower(*id);
  out.message = *message;
  out.url = string_at(c, "url");
  if (const auto author = c.find("author"); author != c.end()) {
    out.author_name = string_at(*author, "name");
    out.author_email = string_at(*author, "email");
  }
  out.timestamp = string_at(c, "timestamp");
  if (out.timestamp && !core::parse_rfc3339(*out.timestamp)) out.timestamp.reset();
  return std::nullopt;
}

json nullable(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

std::string first_line(std::string_view message) {
  const auto line = core::trim(message.substr(0, message.find('\n')));
  return line.size() > 100 ? std::string(line.substr(0, 97)) + "..." : std::string(line);
}

}  // namespace

bool signature_ok(const ForgeHeaders& headers, std::string_view body, std::string_view secret) {
  if (secret.empty()) return true;
  std::string_view sent = headers.signature;
  if (sent.starts_with("sha256=")) sent.remove_prefix(7);
  if (sent.size() != 64) return false;
  return core::constant_time_equals(core::to_lower(std::string(sent)), core::hmac_sha256_hex(secret, body));
}

std::string delivery_id(const ForgeHeaders& headers, std::string_view body) {
  if (!headers.delivery.empty()) return headers.delivery.substr(0, 200);
  return "sha256:" + core::sha256_hex(body);
}

PushRead read_push(std::string_view body) {
  PushRead push;
  push.payload = json::parse(body, nullptr, false);
  const json& p = push.payload;
  if (!p.is_object()) {
    push.payload = json::object();
    push.malformed = Problem::bad_request("the body is not a JSON object");
    return push;
  }
  const auto repository = p.contains("repository") ? string_at(p["repository"], "full_name") : std::nullopt;
  const auto ref = string_at(p, "ref");
  if (!repository || repository->empty() || repository->size() > kMaxName) {
    push.malformed = Problem::invalid_field("repository.full_name", "must be a repository name of 1 to 255 characters");
    return push;
  }
  if (!ref || ref->empty() || ref->size() > kMaxName) {
    push.malformed = Problem::invalid_field("ref", "must be a ref of 1 to 255 characters");
    return push;
  }
  push.repository = *repository;
  push.ref = *ref;
  push.branch = ref->starts_with("refs/heads/") ? ref->substr(11) : *ref;
  push.pusher = pusher_of(p);
  const auto commits = p.find("commits");
  if (commits == p.end() || commits->is_null()) return push;  // a deleted branch: no commits
  if (!commits->is_array()) {
    push.malformed = Problem::invalid_field("commits", "must be an array");
    return push;
  }
  if (commits->size() > kMaxCommits) {
    push.malformed = Problem::invalid_field("commits", "must hold at most 2048 commits");
    return push;
  }
  push.commits.resize(commits->size());
  for (std::size_t i = 0; i < commits->size(); ++i)
    if (auto wrong = read_commit((*commits)[i], "commits[" + std::to_string(i) + "]", push.commits[i])) {
      push.malformed = std::move(wrong);
      push.commits.clear();
      return push;
    }
  return push;
}

json envelope(const ForgeHeaders& headers, const std::string& delivery, const PushRead& push) {
  json commits = json::array();
  for (const auto& c : push.commits)
    commits.push_back({{"id", c.id},
                       {"message", c.message},
                       {"author_name", nullable(c.author_name)},
                       {"author_email", nullable(c.author_email)},
                       {"timestamp", nullable(c.timestamp)},
                       {"url", nullable(c.url)}});
  return {{"type", "gitforge.push"},         {"delivery_id", delivery}, {"forge", headers.forge},
          {"repository", push.repository},   {"ref", push.ref},         {"branch", push.branch},
          {"pusher", nullable(push.pusher)}, {"commits", commits},      {"payload", push.payload}};
}

Summary summary(const PushRead& push) {
  const std::size_t n = push.commits.size();
  Summary s;
  s.title = push.repository + " @ " + push.branch + ": " + std::to_string(n) + (n == 1 ? " commit" : " commits") +
            " by " + push.pusher.value_or("someone");
  for (std::size_t i = 0; i < n && i < kSummaryCommits; ++i)
    s.text += "- " + push.commits[i].id.substr(0, 7) + " " + first_line(push.commits[i].message) + "\n";
  if (n > kSummaryCommits) s.text += "... and " + std::to_string(n - kSummaryCommits) + " more\n";
  if (n == 0) s.text = "no commits (" + push.ref + ")\n";
  return s;
}

}  // namespace ops_console::gitforge
