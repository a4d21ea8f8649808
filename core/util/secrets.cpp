#include "core/util/secrets.hpp"

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
  std::deque<std::string> values;  // in the order remembered, for forgetting the oldest
  std::shared_ptr<const Snapshot> snapshot = std::make_shared<const Snapshot>();
};

Store& store() {
  static Store s;
  return s;
}

// Under the store's mutex.
void publish(Store& s) {
  auto next = std::make_shared<Snapshot>(s.values.begin(), s.values.end());
  std::sort(next->begin(), next->end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::atomic_store(&s.snapshot, std::shared_ptr<const Snapshot>(std::move(next)));
}

}  // namespace

void remember(std::string_view value) {
  if (value.size() < kMinLength) return;
  auto& s = store();
  std::lock_guard lock(s.mutex);
  if (std::find(s.values.begin(), s.values.end(), value) != s.values.end()) return;
  s.values.emplace_back(value);
  if (s.values.size() > kMaxRemembered) s.values.pop_front();
  publish(s);
}

std::string mask(std::string out) {
  const auto snapshot = std::atomic_load(&store().snapshot);
  for (const auto& secret : *snapshot) {
    for (auto at = out.find(secret); at != std::string::npos; at = out.find(secret, at + kMask.size()))
      out.replace(at, secret.size(), kMask);
  }
  return out;
}

std::string quote(std::string_view text, std::size_t limit) {
  std::string out = mask(std::string(text));
  if (out.size() <= limit) return out;
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  const auto dropped = out.size() - cut;
  out.resize(cut);
  out += "... (" + std::to_string(dropped) + " bytes more)";
  return out;
}

void forget_all() {
  auto& s = store();
  std::lock_guard lock(s.mutex);
  s.values.clear();
  publish(s);
}

}  // namespace core::secrets
