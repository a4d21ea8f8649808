#pragma once
// What POST /api/log-evidence reads from outside before a byte of the body (./log_evidence.hpp),
// without I/O: the query's ?fileName=, ?ticketId=, ?companyId= and the Content-Type header.
// Used by the upload's gate; fuzz/fuzz_evidence_upload.cpp fuzzes it with the token's header.
#include "core/http/query.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ops_console {

inline constexpr std::size_t kEvidenceFileNameMax = 255;     // characters (UTF-8 code points)
inline constexpr std::size_t kEvidenceContentTypeMax = 200;  // bytes, trimmed

// A file name that is safe inside Content-Disposition's quotes on every browser: no path, quote,
// backslash, semicolon or control character, and not "." or "..".
bool safe_file_name(std::string_view name);

struct EvidenceMetadata {
  std::string file_name;                   // required, 1 to 255 characters, safe_file_name, not trimmed
  std::string content_type;                // the header trimmed; application/octet-stream when empty
  std::optional<std::int64_t> ticket_id;   // >= 1
  std::optional<std::int64_t> company_id;  // >= 1
};

// Throws the Problem 400 that lists every bad parameter.
EvidenceMetadata read_evidence_metadata(const core::http::Query& query, std::string_view content_type);

}  // namespace ops_console
