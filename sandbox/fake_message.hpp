#pragma once
// One message of the Graph fake's mailboxes.
#include "core/util/time.hpp"

#include <string>
#include <utility>
#include <vector>

namespace sandbox {

struct FakeMessage {
  std::string id;
  std::string internet_message_id;
  std::string subject;
  std::string body;  // plain text
  std::string from_address;
  std::string from_name;
  std::string folder = "inbox";  // well-known folder name
  core::Timestamp received_at{};
  bool is_read = false;
  std::string flag = "notFlagged";
  bool has_attachments = false;
  std::vector<std::pair<std::string, std::string>> headers;  // internetMessageHeaders
};

}  // namespace sandbox
