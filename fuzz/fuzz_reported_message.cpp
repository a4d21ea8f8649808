// Reported messages (phishing): any bytes, as an attached .eml or as a ticket description, are
// read without a crash or a leak, and what comes out keeps the parser's bounds: valid lists,
// indicators without duplicates or empty values, strings no longer than their limits.
#include "ops_console/phishing/message.hpp"

#include <cstdint>
#include <cstdlib>
#include <set>

namespace {

using namespace ops_console::phishing;

void check(const ReportedMessage& m) {
  if (m.urls.size() > kMaxUrls || m.attachments.size() > kMaxAttachments || m.received.size() > kMaxHops ||
      m.text.size() > kMaxText || m.subject.size() > kMaxValue)
    std::abort();
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& i : indicators(m))
    if (i.value.empty() || i.value.size() > kMaxValue || !seen.emplace(i.kind, i.value).second) std::abort();
  for (const auto& url : m.urls)
    if (url_domain(url).empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check(parse_message(text));
  } catch (const ParseError&) {
  }
  if (has_pasted_headers(text)) {
    try {
      const auto m = parse_pasted_headers(text);
      if (!m.headers_only) std::abort();
      check(m);
    } catch (const ParseError&) {
    }
  }
  return 0;
}
