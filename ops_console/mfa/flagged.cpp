#include "ops_console/mfa/flagged.hpp"

#include "core/async/join.hpp"
#include "core/util/secrets.hpp"
#include "core/util/time.hpp"

namespace ops_console::mfa {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::size_t kAccountsAtOnce = 3;

json flagged_user(const json& u, const std::string& account_id, const std::string& account_name) {
  json last_login = nullptr;
  if (u.contains("last_login") && u["last_login"].is_number_integer())
    last_login = core::format_rfc3339(core::Timestamp(std::chrono::seconds(u["last_login"].get<std::int64_t>())));
  const auto text = [&](const char* key) { return u.contains(key) && u[key].is_string() ? u[key] : json(nullptr); };
  return {{"userId", text("user_id")},
          {"user", text("username")},
          {"realname", text("realname")},
          {"email", text("email")},
          {"accountId", account_id.empty() ? json(nullptr) : json(account_id)},
          {"account", account_name},
          {"enrolled", u.value("is_enrolled", false)},
          {"lastLogin", last_login},
          {"notes", text("notes")}};
}

}  // namespace

FlaggedUsers::FlaggedUsers(boost::asio::any_io_executor executor, std::shared_ptr<DuoClient> duo)
    : executor_(std::move(executor)), duo_(std::move(duo)) {}

std::optional<json> FlaggedUsers::cached() {
  std::lock_guard lock(mutex_);
  if (answer_ && std::chrono::steady_clock::now() < until_) return answer_;
  return std::nullopt;
}

awaitable<json> FlaggedUsers::get() {
  if (auto hit = cached()) {
    (*hit)["cached"] = true;
    co_return *hit;
  }
  auto permit = co_await building_.acquire();
  if (auto hit = cached()) {  // built by the caller we waited for
    (*hit)["cached"] = true;
    co_return *hit;
  }
  json answer = co_await fetch();
  {
    std::lock_guard lock(mutex_);
    answer_ = answer;
    until_ = std::chrono::steady_clock::now() + duo_->settings().cache_ttl;
  }
  answer["cached"] = false;
  co_return answer;
}

awaitable<json> FlaggedUsers::fetch() {
  std::vector<std::optional<DuoAccount>> accounts{std::nullopt};  // the parent first
  json out{{"bypass", json::array()}, {"disabled", json::array()}, {"accounts", json::array()}};
  try {
    for (auto& child : co_await duo_->child_accounts()) accounts.emplace_back(std::move(child));
  } catch (const MfaError& e) {
    out["accountListError"] = core::secrets::quote(e.detail());  // the MFA service's words: masked, bounded
  }

  struct Read {
    DuoClient::Users users;
    std::optional<std::string> error;
  };
  std::vector<Read> reads(accounts.size());
  core::async::Semaphore slots(kAccountsAtOnce);
  std::vector<std::function<awaitable<void>()>> tasks;
  for (std::size_t i = 0; i < accounts.size(); ++i)
    tasks.push_back([this, &slots, &account = accounts[i], &read = reads[i]]() -> awaitable<void> {
      auto permit = co_await slots.acquire();
      try {
        read.users = co_await duo_->users(account, {"bypass", "disabled"});
      } catch (const MfaError& e) {
        read.error = core::secrets::quote(e.detail());
      }
    });
  co_await core::async::join_all(executor_, std::move(tasks));

  for (std::size_t i = 0; i < accounts.size(); ++i) {
    const std::string id = accounts[i] ? accounts[i]->id : "";
    const std::string name = accounts[i] ? accounts[i]->name : "parent";
    json entry{{"accountId", id.empty() ? json(nullptr) : json(id)}, {"name", name}};
    if (reads[i].error) {
      entry["users"] = nullptr;
      entry["error"] = *reads[i].error;
    } else {
      entry["users"] = reads[i].users.read;
      for (const auto& u : reads[i].users.kept) {
        const std::string status = u.value("status", "");
        if (status == "bypass") out["bypass"].push_back(flagged_user(u, id, name));
        if (status == "disabled") out["disabled"].push_back(flagged_user(u, id, name));
      }
    }
    out["accounts"].push_back(std::move(entry));
  }
  out["fetchedAt"] = core::format_rfc3339(core::now());
  co_return out;
}

}  // namespace ops_console::mfa
