// A source-control forge's push delivery, as the intake reads it (ops_console/gitforge/push.hpp):
// no crash, and what comes out keeps its promises.
#include "core/util/digest.hpp"
#include "ops_console/gitforge/push.hpp"

#include <cstdlib>
#include <string_view>

using namespace ops_console::gitforge;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const PushRead push = read_push(body);
  if (!push.malformed) {
    if (push.repository.empty() || push.repository.size() > 255 || push.ref.empty()) std::abort();
    if (push.commits.size() > kMaxCommits) std::abort();
    for (const auto& c : push.commits)  // ids are 7 to 64 lowercase hex digits
      if (c.id.size() < 7 || c.id.size() > 64 || c.id.find_first_not_of("0123456789abcdef") != std::string::npos)
        std::abort();
    const ForgeHeaders headers{.forge = "github", .event = "push"};
    const auto copy = envelope(headers, delivery_id(headers, body), push);
    if (copy["commits"].size() != push.commits.size()) std::abort();
    if (!copy["delivery_id"].get<std::string>().starts_with("sha256:")) std::abort();
    const auto message = summary(push);
    if (message.title.empty() || message.text.empty()) std::abort();
  } else if (!push.commits.empty()) {
    std::abort();  // a malformed push stores nothing
  }
  // Signatures: any text, never a crash; a body always matches its own HMAC.
  if (!signature_ok({.signature = "sha256=" + std::string(body.substr(0, 80))}, body, "secret") &&
      !signature_ok({.signature = core::hmac_sha256_hex("secret", body)}, body, "secret"))
    std::abort();
  return 0;
}
