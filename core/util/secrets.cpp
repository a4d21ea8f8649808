#include "core/util/secrets.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace core::secrets {
namespace {

// The values, longest first (so a secret that contains another is masked whole), published as an
// immutable snapshot: a log line reads it without taking the lock.
using Snapshot = std::vector<std::string>;

struct Store {
  std::mutex mutex;
  std::vector<std::string> configured;  // kept for the life of the process
  std::deque<std::string> obtained;     // in the order remembered, for forgetting the oldest
  std::shared_ptr<const Snapshot> snapshot = std::make_shared<const Snapshot>();
};

Store& store() {
  static Store s;
  return s;
}

// Under the store's mutex.
void publish(Store& s) {
  auto next = std::make_shared<Snapshot>(s.configured.begin(), s.configured.end());
  next->insert(next->end(), s.obtained.begin(), s.obtained.end());
  std::sort(next->begin(), next->end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::atomic_store(&s.snapshot, std::shared_ptr<const Snapshot>(std::move(next)));
}

// `value` as it stands inside a JSON string, as the log sink writes its line (nlohmann's dump,
// without the quotes): the log line's form of a secret with a quote, a backslash or a control
// character in it.
std::string json_escaped_form(std::string_view value) {
  const std::string quoted =
      nlohmann::json(std::string(value)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

bool is_remembered(const Store& s, std::string_view value) {
  return std::find(s.configured.begin(), s.configured.end(), value) != s.configured.end() ||
         std::find(s.obtained.begin(), s.obtained.end(), value) != s.obtained.end();
}

std::string mask_values(std::string out, const Snapshot& values) {
  for (const auto& secret : values) {
    if (secret.empty()) continue;
    for (auto at = out.find(secret); at != std::string::npos; at = out.find(secret, at + kMask.size()))
      out.replace(at, secret.size(), kMask);
  }
  return out;
}

std::string cut_to_limit(std::string out, std::size_t limit) {
  if (out.size() <= limit) return out;
  std::size_t at = limit;
  while (at > 0 && (static_cast<unsigned char>(out[at]) & 0xC0) == 0x80) --at;  // not inside a UTF-8 character
  const auto dropped = out.size() - at;
  out.resize(at);
  out += "... (" + std::to_string(dropped) + " bytes more)";
  return out;
}

}  // namespace

void remember(std::string_view value, Kind kind) {
  if (value.size() < kMinLength) return;
  const std::string forms[] = {std::string(value), core::url_encode(value), json_escaped_form(value)};
  auto& s = store();
  std::lock_guard lock(s.mutex);
  bool changed = false;
  for (const auto& form : forms) {
    if (kind == Kind::configured) {  // a configured value is kept, even if it was obtained before
      if (std::find(s.configured.begin(), s.configured.end(), form) != s.configured.end()) continue;
      std::erase(s.obtained, form);
      s.configured.push_back(form);
      changed = true;
    } else {
      if (is_remembered(s, form)) continue;
      changed = true;
      s.obtained.push_back(form);
      if (s.obtained.size() > kMaxRemembered) s.obtained.pop_front();
    }
  }
  if (changed) publish(s);
}

void remember_basic(std::string_view user, std::string_view password, Kind kind) {
  if (password.empty()) return;
  remember(password, kind);
  remember(core::base64(std::string(user) + ":" + std::string(password)), kind);
}

std::string mask(std::string out) {
  const auto snapshot = std::atomic_load(&store().snapshot);
  return mask_values(std::move(out), *snapshot);
}

std::string quote(std::string_view text, std::size_t limit) { return cut_to_limit(mask(std::string(text)), limit); }

std::string quote(std::string_view text, std::size_t limit, std::initializer_list<std::string_view> also) {
  Snapshot extra;
  for (const auto value : also)
    if (value.size() >= kMinLength) extra.emplace_back(value);
  std::sort(extra.begin(), extra.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return cut_to_limit(mask(mask_values(std::string(text), extra)), limit);
}

void forget_all() {
  auto& s = store();
  std::lock_guard lock(s.mutex);
  s.configured.clear();
  s.obtained.clear();
  publish(s);
}

}  // namespace core::secrets
