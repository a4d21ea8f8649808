// What the log-evidence upload reads before its body (ops_console/api/log_evidence_upload.hpp):
// the input is three lines, the Authorization header, the Content-Type header and the raw query.
// A bearer token taken is non-empty and trimmed; metadata accepted meets every documented limit:
// a file name of 1-255 characters, valid UTF-8, safe inside Content-Disposition's quotes; a
// content type of at most 200 bytes; ticket and company ids of 1 or more. Anything else is a
// Problem 400, never another exception.
#include "core/http/bearer.hpp"
#include "core/http/problem.hpp"
#include "core/http/query.hpp"
#include "core/util/strings.hpp"
#include "fuzz/fields.hpp"
#include "ops_console/api/log_evidence_upload.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const auto authorization = fuzz::next_field(rest);
  const auto content_type = fuzz::next_field(rest);
  const auto raw_query = rest;

  if (const auto token = core::http::bearer_token(authorization)) {
    if (token->empty() || core::trim(*token) != *token || authorization.find(*token) == std::string_view::npos)
      std::abort();
  }
  const auto query = core::http::parse_query(raw_query);
  if (!query) return 0;  // the route's 400 for a malformed percent-escape
  try {
    const auto m = ops_console::read_evidence_metadata(*query, content_type);
    std::size_t characters = 0;
    for (const unsigned char c : m.file_name) characters += (c & 0xC0) != 0x80;
    if (characters < 1 || characters > ops_console::kEvidenceFileNameMax) std::abort();
    if (!core::valid_utf8(m.file_name) || !ops_console::safe_file_name(m.file_name)) std::abort();
    for (const unsigned char c : m.file_name)
      if (c < 0x20 || c == 0x7f || c == '"' || c == ';' || c == '/' || c == '\\') std::abort();
    if (m.content_type.empty() || m.content_type.size() > ops_console::kEvidenceContentTypeMax) std::abort();
    if ((m.ticket_id && *m.ticket_id < 1) || (m.company_id && *m.company_id < 1)) std::abort();
  } catch (const core::http::Problem& p) {
    if (p.errors().empty()) std::abort();  // every refusal names its parameter
  }
  return 0;
}
