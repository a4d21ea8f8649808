#include "sandbox/gitforge_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/http/client.hpp"
#include "core/util/digest.hpp"
#include "core/util/standard_webhooks.hpp"
#include "core/util/strings.hpp"

#include <boost/asio/this_coro.hpp>

#include <cstdlib>
#include <ctime>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr std::size_t kMaxReceived = 1000;
constexpr std::size_t kMaxRemembered = 10'000;                                             // delivery ids per receiver
constexpr std::chrono::sys_seconds kDefaultPushedAt{std::chrono::seconds(1'795'428'000)};  // 2026-11-23T10:00:00Z
constexpr std::chrono::sys_seconds kRepositoryCreated{std::chrono::seconds(1'709'542'800)};  // 2024-03-04T09:00:00Z
constexpr int kMaxCommits = 50;
constexpr const char* kGithub = "https://github.com";
constexpr const char* kGithubApi = "https://api.github.com";
constexpr const char* kGitea = "https://gitea.msp.example";
constexpr const char* kZeroId = "0000000000000000000000000000000000000000";

const char* const kMessages[] = {"Update backup retention to 30 days", "Fix printer mapping for the Leeds office",
                                 "Add disk-space check for file servers", "Rotate the RMM agent install token",
                                 "Tidy onboarding script output"};
const char* const kZen[] = {"Design for failure.",        "Keep it logically awesome.",
                            "Speak like a human.",        "Responsive is better than fast.",
                            "Practicality beats purity.", "Non-blocking is better than blocking.",
                            "Favor focus over features."};

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Response error(int status, const std::string& message) { return Response::json({{"error", message}}, Status(status)); }

bool is_lower_hex(std::string_view s) {
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// A decimal count of seconds, digits only.
std::optional<std::int64_t> parse_timestamp(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  for (const char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  return core::parse_int64(s);
}

json header_or_null(const Request& req, std::string_view name) {
  const auto v = req.header(name);
  return v.empty() ? json(nullptr) : json(std::string(v));
}

// ---- The push sender's payloads -------------------------------------------------------------

std::string hex40(const std::string& seed) { return core::sha256_hex(seed).substr(0, 40); }

// A stable number for a name (repository, user, hook id), in [base, base + 90,000,000).
std::int64_t number(const std::string& seed, std::int64_t base) {
  return base + static_cast<std::int64_t>(std::stoull(core::sha256_hex(seed).substr(0, 12), nullptr, 16) % 90'000'000);
}

// "2026-11-23T10:00:00" + suffix: GitHub writes "+00:00", Go (Gitea) "Z".
std::string format_time(std::chrono::sys_seconds t, const char* suffix) {
  const std::time_t tt = t.time_since_epoch().count();
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(buf) + suffix;
}
std::string github_time(std::chrono::sys_seconds t) { return format_time(t, "+00:00"); }
std::string go_time(std::chrono::sys_seconds t) { return format_time(t, "Z"); }

std::string owner_of(const std::string& full_name) { return full_name.substr(0, full_name.find('/')); }
std::string name_of(const std::string& full_name) { return full_name.substr(full_name.find('/') + 1); }

struct Commit {
  std::string id, message, author_name, author_email, username;
  std::chrono::sys_seconds time;
};

std::vector<Commit> commits_of(const PushSpec& spec, std::chrono::sys_seconds at) {
  std::vector<PushCommit> given;
  if (const auto* list = std::get_if<std::vector<PushCommit>>(&spec.commits))
    given = *list;
  else
    given.resize(static_cast<std::size_t>(std::max(0, std::get<int>(spec.commits))));
  std::vector<Commit> out;
  const auto n = static_cast<int>(given.size());
  for (int i = 0; i < n; ++i) {
    const auto& g = given[static_cast<std::size_t>(i)];
    Commit c;
    c.message = g.message.empty() ? kMessages[static_cast<std::size_t>(i) % std::size(kMessages)] : g.message;
    c.id = g.id.empty() ? hex40(spec.repository + "\n" + spec.branch + "\n" + c.message + "\n" + std::to_string(i))
                        : core::to_lower(g.id);
    c.author_name = g.author_name.empty() ? spec.pusher : g.author_name;
    c.author_email = g.author_email.empty() ? c.author_name + "@msp.example" : g.author_email;
    c.username = g.author_name.empty() ? spec.pusher : "";  // only a known account has one
    c.time = at - std::chrono::minutes(n - 1 - i);
    out.push_back(std::move(c));
  }
  return out;
}

std::string before_of(const PushSpec& spec) { return hex40("before\n" + spec.repository + "\n" + spec.branch); }

// GitHub's -----------------------------------------------------------------------------------

ordered_json github_user(const std::string& login, const char* type) {
  const auto id = number("user:" + login, 10'000'000);
  ordered_json u;
  u["login"] = login;
  u["id"] = id;
  u["node_id"] = (std::string(type) == "User" ? "U_kgDO" : "O_kgDO") + hex40(login).substr(0, 8);
  u["avatar_url"] = "https://avatars.githubusercontent.com/u/" + std::to_string(id) + "?v=4";
  u["url"] = std::string(kGithubApi) + "/users/" + login;
  u["html_url"] = std::string(kGithub) + "/" + login;
  u["type"] = type;
  u["site_admin"] = false;
  return u;
}

// The repository as push events carry it: owner with name and email, timestamps as unix seconds.
ordered_json github_repository(const PushSpec& spec, std::chrono::sys_seconds at, bool push_shape) {
  const std::string html = std::string(kGithub) + "/" + spec.repository;
  const std::string owner = owner_of(spec.repository);
  ordered_json r;
  r["id"] = number("repo:" + spec.repository, 600'000'000);
  r["node_id"] = "R_kgDO" + hex40(spec.repository).substr(0, 8);
  r["name"] = name_of(spec.repository);
  r["full_name"] = spec.repository;
  r["private"] = true;
  ordered_json o = github_user(owner, "Organization");
  if (push_shape) {
    ordered_json with_name;
    with_name["name"] = owner;
    with_name["email"] = nullptr;
    for (const auto& [k, v] : o.items()) with_name[k] = v;
    o = with_name;
  }
  r["owner"] = o;
  r["html_url"] = html;
  r["description"] = "Scripts the MSP runs on client estates";
  r["fork"] = false;
  r["url"] = push_shape ? html : std::string(kGithubApi) + "/repos/" + spec.repository;
  if (push_shape) {
    r["created_at"] = kRepositoryCreated.time_since_epoch().count();
    r["updated_at"] = go_time(at);
    r["pushed_at"] = at.time_since_epoch().count();
  } else {
    r["created_at"] = go_time(kRepositoryCreated);
    r["updated_at"] = go_time(at);
    r["pushed_at"] = go_time(at);
  }
  r["git_url"] = "git://github.com/" + spec.repository + ".git";
  r["ssh_url"] = "git@github.com:" + spec.repository + ".git";
  r["clone_url"] = html + ".git";
  r["visibility"] = "private";
  r["default_branch"] = "main";
  if (push_shape) r["master_branch"] = "main";
  return r;
}

ordered_json github_commit(const Commit& c, const std::string& html) {
  ordered_json person;
  person["name"] = c.author_name;
  person["email"] = c.author_email;
  if (!c.username.empty()) person["username"] = c.username;
  ordered_json o;
  o["id"] = c.id;
  o["tree_id"] = hex40("tree\n" + c.id);
  o["distinct"] = true;
  o["message"] = c.message;
  o["timestamp"] = github_time(c.time);
  o["url"] = html + "/commit/" + c.id;
  o["author"] = person;
  o["committer"] = person;
  o["added"] = ordered_json::array();
  o["removed"] = ordered_json::array();
  o["modified"] = ordered_json::array({"README.md"});
  return o;
}

ordered_json github_push(const PushSpec& spec, std::chrono::sys_seconds at) {
  const auto commits = commits_of(spec, at);
  const std::string html = std::string(kGithub) + "/" + spec.repository;
  const std::string before = before_of(spec);
  const std::string after = commits.empty() ? before : commits.back().id;
  ordered_json p;
  p["ref"] = "refs/heads/" + spec.branch;
  p["before"] = before;
  p["after"] = after;
  p["repository"] = github_repository(spec, at, true);
  p["pusher"] = {{"name", spec.pusher}, {"email", spec.pusher + "@msp.example"}};
  p["sender"] = github_user(spec.pusher, "User");
  p["created"] = false;
  p["deleted"] = false;
  p["forced"] = false;
  p["base_ref"] = nullptr;
  p["compare"] = html + "/compare/" + before.substr(0, 12) + "..." + after.substr(0, 12);
  p["commits"] = ordered_json::array();
  for (const auto& c : commits) p["commits"].push_back(github_commit(c, html));
  p["head_commit"] = commits.empty() ? ordered_json(nullptr) : p["commits"].back();
  return p;
}

std::string zen_of(const PushSpec& spec) {
  return kZen[static_cast<std::size_t>(number("zen:" + spec.repository, 0)) % std::size(kZen)];
}

std::int64_t hook_id_of(const PushSpec& spec) { return number("hook:" + spec.url, 400'000'000); }

ordered_json github_ping(const PushSpec& spec, std::chrono::sys_seconds at) {
  const auto id = hook_id_of(spec);
  const std::string api = std::string(kGithubApi) + "/repos/" + spec.repository + "/hooks/" + std::to_string(id);
  ordered_json hook;
  hook["type"] = "Repository";
  hook["id"] = id;
  hook["name"] = "web";
  hook["active"] = true;
  hook["events"] = ordered_json::array({"push"});
  hook["config"] = {{"content_type", "json"}, {"insecure_ssl", "0"}, {"url", spec.url}};
  hook["updated_at"] = go_time(at);
  hook["created_at"] = go_time(at);
  hook["url"] = api;
  hook["test_url"] = api + "/test";
  hook["ping_url"] = api + "/pings";
  hook["deliveries_url"] = api + "/deliveries";
  hook["last_response"] = {{"code", nullptr}, {"status", "unused"}, {"message", nullptr}};
  ordered_json p;
  p["zen"] = zen_of(spec);
  p["hook_id"] = id;
  p["hook"] = hook;
  p["repository"] = github_repository(spec, at, false);
  p["sender"] = github_user(spec.pusher, "User");
  return p;
}

// Gitea's (modules/structs: PushPayload, PayloadCommit, Repository, User) ------------------------

ordered_json gitea_user(const std::string& login, const std::string& full_name, const std::string& email) {
  const auto id = number("gitea-user:" + login, 1);
  ordered_json u;
  u["id"] = id;
  u["login"] = login;
  u["login_name"] = "";
  u["source_id"] = 0;
  u["full_name"] = full_name;
  u["email"] = email;
  u["avatar_url"] = std::string(kGitea) + "/avatars/" + hex40(login).substr(0, 32);
  u["html_url"] = std::string(kGitea) + "/" + login;
  u["language"] = "";
  u["is_admin"] = false;
  u["last_login"] = "0001-01-01T00:00:00Z";
  u["created"] = go_time(kRepositoryCreated);
  u["restricted"] = false;
  u["active"] = false;
  u["prohibit_login"] = false;
  u["location"] = "";
  u["website"] = "";
  u["description"] = "";
  u["visibility"] = "public";
  u["followers_count"] = 0;
  u["following_count"] = 0;
  u["starred_repos_count"] = 0;
  u["username"] = login;
  return u;
}

ordered_json gitea_repository(const PushSpec& spec, std::chrono::sys_seconds at) {
  const std::string html = std::string(kGitea) + "/" + spec.repository;
  const std::string owner = owner_of(spec.repository);
  ordered_json r;
  r["id"] = number("gitea-repo:" + spec.repository, 1);
  r["owner"] = gitea_user(owner, "", "");
  r["name"] = name_of(spec.repository);
  r["full_name"] = spec.repository;
  r["description"] = "Scripts the MSP runs on client estates";
  r["empty"] = false;
  r["private"] = true;
  r["fork"] = false;
  r["template"] = false;
  r["parent"] = nullptr;
  r["mirror"] = false;
  r["size"] = 412;
  r["language"] = "PowerShell";
  r["languages_url"] = std::string(kGitea) + "/api/v1/repos/" + spec.repository + "/languages";
  r["html_url"] = html;
  r["url"] = std::string(kGitea) + "/api/v1/repos/" + spec.repository;
  r["link"] = "";
  r["ssh_url"] = "git@gitea.msp.example:" + spec.repository + ".git";
  r["clone_url"] = html + ".git";
  r["original_url"] = "";
  r["website"] = "";
  r["stars_count"] = 0;
  r["forks_count"] = 0;
  r["watchers_count"] = 1;
  r["open_issues_count"] = 0;
  r["open_pr_counter"] = 0;
  r["release_counter"] = 0;
  r["default_branch"] = "main";
  r["archived"] = false;
  r["created_at"] = go_time(kRepositoryCreated);
  r["updated_at"] = go_time(at);
  r["has_issues"] = true;
  r["has_wiki"] = false;
  r["has_pull_requests"] = true;
  r["internal"] = false;
  r["object_format_name"] = "sha1";
  return r;
}

// `files`: Gitea leaves added/removed/modified unset (null) in its test delivery.
ordered_json gitea_commit(const Commit& c, const std::string& html, bool files) {
  ordered_json person;
  person["name"] = c.author_name;
  person["email"] = c.author_email;
  person["username"] = c.username;
  ordered_json o;
  o["id"] = c.id;
  o["message"] = c.message;
  o["url"] = html + "/commit/" + c.id;
  o["author"] = person;
  o["committer"] = person;
  o["verification"] = nullptr;
  o["timestamp"] = c.time.time_since_epoch().count() == 0 ? "0001-01-01T00:00:00Z" : go_time(c.time);
  o["added"] = files ? ordered_json::array() : ordered_json(nullptr);
  o["removed"] = files ? ordered_json::array() : ordered_json(nullptr);
  o["modified"] = files ? ordered_json::array({"README.md"}) : ordered_json(nullptr);
  return o;
}

// A push; for event "ping", what Gitea's "Test Delivery" sends instead: one fake commit.
ordered_json gitea_push(const PushSpec& spec, std::chrono::sys_seconds at, bool test_delivery) {
  const std::string html = std::string(kGitea) + "/" + spec.repository;
  std::vector<Commit> commits;
  if (test_delivery) {
    Commit fake{.id = kZeroId, .message = "This is a fake commit", .author_name = "Ghost"};
    fake.time = std::chrono::sys_seconds{};  // a zero Go time
    commits.push_back(fake);
  } else {
    commits = commits_of(spec, at);
  }
  const std::string before = test_delivery ? kZeroId : before_of(spec);
  const std::string after = commits.empty() ? before : commits.back().id;
  const auto pusher = gitea_user(spec.pusher, spec.pusher, spec.pusher + "@msp.example");
  ordered_json p;
  p["ref"] = "refs/heads/" + spec.branch;
  p["before"] = before;
  p["after"] = after;
  p["compare_url"] = html + "/compare/" + before + "..." + after;
  p["commits"] = ordered_json::array();
  for (const auto& c : commits) p["commits"].push_back(gitea_commit(c, html, !test_delivery));
  p["total_commits"] = commits.size();
  p["head_commit"] = commits.empty() ? ordered_json(nullptr) : p["commits"].back();
  p["repository"] = gitea_repository(spec, at);
  p["pusher"] = pusher;
  p["sender"] = pusher;
  return p;
}

// Any other event: a small body naming it.
ordered_json other_event(const PushSpec& spec, std::chrono::sys_seconds at) {
  ordered_json p;
  p["zen"] = zen_of(spec);
  p["hook_id"] = hook_id_of(spec);
  if (spec.forge == "gitea") {
    p["repository"] = gitea_repository(spec, at);
    p["sender"] = gitea_user(spec.pusher, spec.pusher, spec.pusher + "@msp.example");
  } else {
    p["repository"] = github_repository(spec, at, false);
    p["sender"] = github_user(spec.pusher, "User");
  }
  return p;
}

ordered_json ordered_payload(const PushSpec& spec) {
  const auto at = spec.pushed_at.value_or(kDefaultPushedAt);
  const bool gitea = spec.forge == "gitea";
  if (spec.event == "push") return gitea ? gitea_push(spec, at, false) : github_push(spec, at);
  if (spec.event == "ping") return gitea ? gitea_push(spec, at, true) : github_ping(spec, at);
  return other_event(spec, at);
}

// Go's encoding/json (Gitea's json.MarshalIndent with two spaces): <, > and & escaped as \u003c,
// \u003e, \u0026, and U+2028/U+2029 as \u2028/\u2029. Those bytes occur only inside strings.
std::string go_indented(const ordered_json& payload) {
  const std::string dumped = payload.dump(2, ' ', false, ordered_json::error_handler_t::replace);
  std::string out;
  out.reserve(dumped.size());
  for (std::size_t i = 0; i < dumped.size(); ++i) {
    const char c = dumped[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < dumped.size() && dumped[i + 1] == '\x80' &&
               (dumped[i + 2] == '\xA8' || dumped[i + 2] == '\xA9')) {
      out += dumped[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// The event header's value: Gitea's test delivery is a push.
std::string event_name(const PushSpec& spec) {
  return spec.forge == "gitea" && spec.event == "ping" ? "push" : spec.event;
}

core::http::HeaderList forge_headers(const PushSpec& spec, const std::string& body) {
  const std::string event = event_name(spec);
  const bool signs = !spec.secret.empty() || spec.bad_signature;
  const std::string key = spec.bad_signature ? "not-" + spec.secret : spec.secret;
  const std::string sha256 = signs ? core::hmac_sha256_hex(key, body) : "";
  const std::string sha1 = signs ? core::hmac_sha1_hex(key, body) : "";
  core::http::HeaderList h{{"Content-Type", "application/json"}};
  if (spec.forge == "gitea") {
    h.insert(h.end(), {{"X-Gitea-Delivery", spec.delivery},
                       {"X-Gitea-Event", event},
                       {"X-Gitea-Event-Type", event},
                       {"X-Gogs-Delivery", spec.delivery},
                       {"X-Gogs-Event", event},
                       {"X-Gogs-Event-Type", event},
                       {"X-GitHub-Delivery", spec.delivery},
                       {"X-GitHub-Event", event},
                       {"X-GitHub-Event-Type", event},
                       {"X-Gitea-Hook-Installation-Target-Type", "repository"},
                       {"X-GitHub-Hook-Installation-Target-Type", "repository"}});
    if (signs)
      h.insert(h.end(), {{"X-Gitea-Signature", sha256},
                         {"X-Gogs-Signature", sha256},
                         {"X-Hub-Signature", "sha1=" + sha1},
                         {"X-Hub-Signature-256", "sha256=" + sha256}});
  } else {
    h.insert(h.end(), {{"X-GitHub-Event", event},
                       {"X-GitHub-Delivery", spec.delivery},
                       {"X-GitHub-Hook-ID", std::to_string(hook_id_of(spec))},
                       {"X-GitHub-Hook-Installation-Target-Type", "repository"},
                       {"X-GitHub-Hook-Installation-Target-ID",
                        std::to_string(number("repo:" + spec.repository, 600'000'000))}});
    if (signs) h.insert(h.end(), {{"X-Hub-Signature", "sha1=" + sha1}, {"X-Hub-Signature-256", "sha256=" + sha256}});
  }
  return h;
}

// The route's body as a PushSpec; the problems found, joined, when it is not one.
std::string read_spec(const json& body, PushSpec& spec) {
  if (!body.is_object()) return "body must be a JSON object";
  std::vector<std::string> problems;
  const auto text = [&](const char* name, std::string& target, bool required, bool non_empty) {
    if (!body.contains(name)) {
      if (required) problems.push_back(std::string(name) + " is required");
      return;
    }
    if (!body[name].is_string() || (non_empty && body[name].get<std::string>().empty())) {
      problems.push_back(std::string(name) + (non_empty ? " must be a non-empty string" : " must be a string"));
      return;
    }
    target = body[name].get<std::string>();
  };
  text("url", spec.url, true, true);
  text("secret", spec.secret, false, false);
  text("forge", spec.forge, false, true);
  text("event", spec.event, false, true);
  text("repository", spec.repository, false, true);
  text("branch", spec.branch, false, true);
  text("pusher", spec.pusher, false, true);
  text("delivery", spec.delivery, false, true);
  if (spec.forge != "github" && spec.forge != "gitea") problems.push_back("forge must be github or gitea");
  const auto slash = spec.repository.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == spec.repository.size() ||
      spec.repository.find('/', slash + 1) != std::string::npos)
    problems.push_back("repository must be owner/name");
  if (body.contains("bad_signature")) {
    if (body["bad_signature"].is_boolean())
      spec.bad_signature = body["bad_signature"].get<bool>();
    else
      problems.push_back("bad_signature must be a boolean");
  }
  if (body.contains("commits")) {
    const auto& commits = body["commits"];
    if (commits.is_number_integer()) {
      const auto n = commits.get<std::int64_t>();
      if (n < 0 || n > kMaxCommits)
        problems.push_back("commits must be 0..50");
      else
        spec.commits = static_cast<int>(n);
    } else if (commits.is_array() && commits.size() <= kMaxCommits) {
      std::vector<PushCommit> list;
      for (const auto& c : commits) {
        PushCommit pc;
        if (!c.is_object() || !c.contains("message") || !c["message"].is_string() ||
            c["message"].get<std::string>().empty()) {
          problems.push_back("each commit must be {id?, message, author_name?, author_email?}");
          break;
        }
        pc.message = c["message"].get<std::string>();
        pc.id = c.value("id", "");
        pc.author_name = c.value("author_name", "");
        pc.author_email = c.value("author_email", "");
        if (!pc.id.empty() && (pc.id.size() != 40 || !is_lower_hex(core::to_lower(pc.id)))) {
          problems.push_back("a commit id must be 40 hex digits");
          break;
        }
        list.push_back(std::move(pc));
      }
      spec.commits = std::move(list);
    } else {
      problems.push_back("commits must be an integer 0..50 or an array of at most 50 commits");
    }
  }
  return core::join(problems, "; ");
}

}  // namespace

// ---- Agent receivers ----------------------------------------------------------------------------

core::http::HeaderList GitforgeFake::agent_headers(std::string_view secret, std::string_view webhook_id,
                                                   std::int64_t timestamp, std::string_view body) {
  auto headers =
      core::standard_webhooks::headers(core::standard_webhooks::signing_key(secret), webhook_id, timestamp, body);
  headers.emplace_back("X-Ops-Event", "gitforge.push");
  return headers;
}

void GitforgeFake::configure_receiver(const std::string& name, const std::string& secret) {
  std::lock_guard lock(mutex_);
  receivers_[name].secret = secret;
}

void GitforgeFake::set_receiver_fault(const std::string& name, AgentFault fault) {
  std::lock_guard lock(mutex_);
  faults_[name] = fault;
}

json GitforgeFake::received(const std::string& receiver) const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  for (const auto& r : received_)
    if (receiver.empty() || r["receiver"] == receiver) out.push_back(r);
  return out;
}

void GitforgeFake::set_receiver_latency(const std::string& name, std::chrono::milliseconds latency) {
  std::lock_guard lock(mutex_);
  latency_[name] = latency;
}

int GitforgeFake::in_flight(const std::string& name) const {
  std::lock_guard lock(mutex_);
  const auto it = in_flight_.find(name);
  return it == in_flight_.end() ? 0 : it->second;
}

void GitforgeFake::clear() {
  std::lock_guard lock(mutex_);
  received_.clear();
  faults_.clear();
  latency_.clear();
  for (auto& [name, r] : receivers_) {
    r.accepted.clear();
    r.accepted_order.clear();
  }
}

Response GitforgeFake::deliver(const std::string& name, const Request& req) {
  namespace sw = core::standard_webhooks;
  const std::string webhook_id(req.header("webhook-id"));
  const std::string_view timestamp_text = req.header("webhook-timestamp");
  const std::string_view signature = req.header("webhook-signature");
  const auto timestamp = parse_timestamp(timestamp_text);
  const auto body = json::parse(req.body, nullptr, false);

  std::lock_guard lock(mutex_);
  const auto it = receivers_.find(name);
  if (it == receivers_.end()) return error(404, "no such receiver: " + name);
  Receiver& receiver = it->second;
  const auto verdict =
      sw::verify(sw::signing_key(receiver.secret), webhook_id, timestamp_text, signature, req.body, unix_now());

  Response res;
  bool duplicate = false;
  if (auto f = faults_.find(name); f != faults_.end() && f->second.count > 0) {
    --f->second.count;
    res = error(f->second.status, "receiver unavailable");
    if (f->second.retry_after > 0) res.headers.set("Retry-After", std::to_string(f->second.retry_after));
  } else if (verdict == sw::Verdict::missing_header) {
    res = error(400, "missing webhook-id, webhook-timestamp or webhook-signature");
  } else if (verdict == sw::Verdict::malformed_timestamp) {
    res = error(400, "malformed webhook-timestamp (unix seconds, decimal)");
  } else if (verdict == sw::Verdict::stale_timestamp) {
    res = error(401, "stale timestamp");
  } else if (verdict == sw::Verdict::bad_signature) {
    res = error(401, "bad signature");
  } else if (!body.is_object()) {
    res = error(400, "body must be a JSON object");
  } else if (receiver.accepted.contains(webhook_id)) {
    duplicate = true;
    res = Response::json({{"accepted", true}, {"duplicate", true}});
  } else {
    receiver.accepted.insert(webhook_id);
    receiver.accepted_order.push_back(webhook_id);
    if (receiver.accepted_order.size() > kMaxRemembered) {
      receiver.accepted.erase(receiver.accepted_order.front());
      receiver.accepted_order.pop_front();
    }
    res = Response::json({{"accepted", true}, {"duplicate", false}});
  }

  json recorded_timestamp = timestamp ? json(*timestamp) : header_or_null(req, "webhook-timestamp");
  received_.push_back({{"receiver", name},
                       {"webhook_id", header_or_null(req, "webhook-id")},
                       {"event", header_or_null(req, "X-Ops-Event")},
                       {"timestamp", std::move(recorded_timestamp)},
                       {"signature", header_or_null(req, "webhook-signature")},
                       {"verified", verdict == sw::Verdict::ok},
                       {"status", static_cast<int>(res.status)},
                       {"duplicate", duplicate},
                       {"body", body.is_discarded() ? json(req.body) : body},
                       {"raw_body", req.body}});
  if (received_.size() > kMaxReceived) received_.pop_front();
  return res;
}

// ---- The push sender ----------------------------------------------------------------------------

json GitforgeFake::push_payload(const PushSpec& spec) {
  return json::parse(ordered_payload(spec).dump(-1, ' ', false, ordered_json::error_handler_t::replace));
}

awaitable<json> GitforgeFake::send_push(PushSpec spec) {
  if (spec.delivery.empty()) spec.delivery = core::random_uuid();
  if (!spec.pushed_at) spec.pushed_at = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  const auto payload = ordered_payload(spec);
  const bool gitea = spec.forge == "gitea";
  // GitHub posts compact JSON; Gitea its indented form. Either way the signature covers these bytes.
  const std::string body =
      gitea ? go_indented(payload) : payload.dump(-1, ' ', false, ordered_json::error_handler_t::replace);

  // One attempt: the forges' own redelivery is the caller's to imitate (send the same delivery again).
  const auto executor = co_await asio::this_coro::executor;
  core::http::ClientOptions options;
  options.total_timeout = std::chrono::seconds(10);
  options.max_retries = 0;
  options.user_agent = gitea ? "Go-http-client/1.1" : "GitHub-Hookshot/044aadd";
  const core::http::Client client(executor, options);
  core::http::OutboundRequest request{.method = "POST",
                                      .url = spec.url,
                                      .headers = forge_headers(spec, body),
                                      .body = body,
                                      .retry_transport_errors = false};
  json answer = {{"delivery", spec.delivery}, {"payload", json::parse(body)}};
  try {
    const auto response = co_await client.send(std::move(request));
    const auto parsed = json::parse(response.body, nullptr, false);
    answer["status"] = response.status;
    answer["body"] = parsed.is_discarded() ? json(response.body.substr(0, 4096)) : parsed;
  } catch (const std::exception& e) {
    answer["status"] = 0;
    answer["error"] = std::string("console unreachable: ") + e.what();
  }
  co_return answer;
}

void GitforgeFake::install(core::http::Router& router) {
  router.post("/agent/{name}/events", [this](Request& req) -> awaitable<Response> {
    const std::string name(req.param("name"));
    std::chrono::milliseconds latency{0};
    {
      std::lock_guard lock(mutex_);
      if (const auto it = latency_.find(name); it != latency_.end()) latency = it->second;
      ++in_flight_[name];
    }
    if (latency.count() > 0) co_await core::async::sleep_for(latency);
    {
      std::lock_guard lock(mutex_);
      --in_flight_[name];
    }
    co_return deliver(name, req);
  });
  router.put("/_sandbox/agent/latency", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("receiver") || !body["receiver"].is_string() ||
        !body.value("latency_ms", json()).is_number_integer() || body["latency_ms"].get<std::int64_t>() < 0 ||
        body["latency_ms"].get<std::int64_t>() > 600'000)
      co_return error(400, "body must be {receiver, latency_ms: 0..600000}");
    set_receiver_latency(body["receiver"].get<std::string>(),
                         std::chrono::milliseconds(body["latency_ms"].get<std::int64_t>()));
    co_return Response::empty();
  });

  router.put("/_sandbox/agent/receivers/{name}", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("secret") || !body["secret"].is_string() ||
        body["secret"].get<std::string>().empty())
      co_return error(400, "body must be {secret} with a non-empty secret");
    configure_receiver(std::string(req.param("name")), body["secret"].get<std::string>());
    co_return Response::empty();
  });
  router.put("/_sandbox/agent/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("receiver") || !body["receiver"].is_string())
      co_return error(400, "body must be {receiver, status, count, retry_after?}");
    for (const char* field : {"status", "count", "retry_after"})
      if (body.contains(field) && !body[field].is_number_integer())
        co_return error(400, std::string(field) + " must be an integer");
    const AgentFault fault{.status = body.value("status", 503),
                           .count = body.value("count", 1),
                           .retry_after = body.value("retry_after", 0)};
    if (fault.status < 100 || fault.status > 599) co_return error(400, "status must be an HTTP status");
    set_receiver_fault(body["receiver"].get<std::string>(), fault);
    co_return Response::empty();
  });
  router.get("/_sandbox/agent/received", [this](Request& req) -> awaitable<Response> {
    co_return Response::json(received(std::string(req.query.get("receiver").value_or(""))));
  });
  router.del("/_sandbox/agent/received", [this](Request&) -> awaitable<Response> {
    clear();
    co_return Response::empty();
  });

  router.post("/_sandbox/gitforge/push", [this](Request& req) -> awaitable<Response> {
    PushSpec spec;
    std::string problems;
    try {
      problems = read_spec(json::parse(req.body, nullptr, false), spec);
    } catch (const json::exception&) {  // a field of the wrong type (a commit's id: 7)
      problems = "commits' id, author_name and author_email must be strings";
    }
    if (!problems.empty()) co_return error(400, problems);
    auto answer = co_await send_push(std::move(spec));
    const bool unreachable = answer.contains("error");
    co_return Response::json(answer, unreachable ? Status::bad_gateway : Status::ok);
  });
}

}  // namespace sandbox
