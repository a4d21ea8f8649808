#pragma once
// The "echo credentials" switch every vendor fake has (issue 31, part 4). Vendors do quote what a
// request carried in their error messages: a refused key ("Incorrect API key provided: ..."), the
// client secret of a refused token request, a bearer token in a server error's trace, the request's
// headers in a gateway's 500; and a quoted body can be hundreds of kilobytes. With the switch on,
// each error answer a fake's gate, fault switches or token endpoint gives carries, in that vendor's
// own error shape (its message field), the credentials the request carried, and `padding` bytes more:
//
//   "Authentication failed (received: Secret=sandbox-secret, ApiIntegrationCode=sandbox-integration)"
//
// The fake keeps every value it echoed, so a test can look for each wherever the client's words
// went (the log, stored errors, problem+json answers):
//
//   fakes.pax8().set_faults({.server_errors = 5, .status = 500, .echo = {.credentials = true}});
//   ... the client fails ...
//   for (const auto& value : fakes.pax8().echoed()) EXPECT_EQ(log.find(value), std::string::npos);
//
// Control routes: "echo_credentials": true|false and "error_padding": 0..1000000 in the body of each
// fake's PUT /_sandbox/<fake>/faults (read_echo_switch); its stats count the answers as "echoed".
#include <nlohmann/json.hpp>

#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sandbox {

struct EchoSwitch {
  bool credentials = false;  // error answers quote the credentials the request carried
  int padding = 0;           // bytes of filler after them (an upstream that quotes a huge body)
};

// What a fake has echoed. Thread-safe.
class Echoes {
 public:
  // `message` as the switch makes it: unchanged when off; else followed by " (received: name=value,
  // ...)" for each credential with a value, and `padding` bytes of filler. Remembers the values.
  std::string message(const EchoSwitch& echo, std::string message,
                      const std::vector<std::pair<std::string, std::string>>& credentials);
  // Every distinct value echoed since the last clear().
  std::vector<std::string> values() const;
  std::int64_t count() const;  // answers that echoed something
  void clear();

 private:
  mutable std::mutex mutex_;
  std::set<std::string> values_;
  std::int64_t count_ = 0;
};

// "echo_credentials" (a boolean) and "error_padding" (0..1,000,000) of a faults body into `target`;
// a field that is absent leaves it as it is. A message for the 400 otherwise.
std::optional<std::string> read_echo_switch(const nlohmann::json& body, EchoSwitch& target);

}  // namespace sandbox
