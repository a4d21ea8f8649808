#include "sandbox/echo.hpp"

#include "sandbox/control_body.hpp"

namespace sandbox {

std::string Echoes::message(const EchoSwitch& echo, std::string message,
                            const std::vector<std::pair<std::string, std::string>>& credentials) {
  if (!echo.credentials) return message;
  std::string received;
  std::lock_guard lock(mutex_);
  for (const auto& [name, value] : credentials) {
    if (value.empty()) continue;
    received += (received.empty() ? "" : ", ") + name + "=" + value;
    values_.insert(value);
  }
  if (received.empty() && echo.padding == 0) return message;
  ++count_;
  const auto append = [&](std::string text) { message += (message.empty() ? "" : " ") + std::move(text); };
  if (!received.empty()) append("(received: " + received + ")");
  if (echo.padding > 0) append(std::string(static_cast<std::size_t>(echo.padding), 'x'));
  return message;
}

std::vector<std::string> Echoes::values() const {
  std::lock_guard lock(mutex_);
  return {values_.begin(), values_.end()};
}

std::int64_t Echoes::count() const {
  std::lock_guard lock(mutex_);
  return count_;
}

void Echoes::clear() {
  std::lock_guard lock(mutex_);
  values_.clear();
  count_ = 0;
}

std::optional<std::string> read_echo_switch(const nlohmann::json& body, EchoSwitch& target) {
  if (body.contains("echo_credentials")) {
    if (!body["echo_credentials"].is_boolean()) return "echo_credentials must be true or false";
    target.credentials = body["echo_credentials"].get<bool>();
  }
  return read_int(body, "error_padding", 0, 1'000'000, target.padding);
}

}  // namespace sandbox
