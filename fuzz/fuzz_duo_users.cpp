// Pages of users from the MFA service: any body is read without a crash, and a page never keeps
// more users than it read.
#include "ops_console/mfa/duo_users.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::set<std::string> kFlagged{"bypass", "disabled"};
  const auto page = ops_console::mfa::parse_users_page(text, kFlagged);
  if (page && static_cast<std::int64_t>(page->users.size()) > page->read) std::abort();
  return 0;
}
