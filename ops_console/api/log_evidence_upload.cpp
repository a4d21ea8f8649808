#include "ops_console/api/log_evidence_upload.hpp"

#include "core/json/validate.hpp"
#include "core/util/strings.hpp"

namespace ops_console {

bool safe_file_name(std::string_view name) {
  if (name == "." || name == "..") return false;
  for (const unsigned char c : name)
    if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == '"' || c == ';') return false;
  return true;
}

EvidenceMetadata read_evidence_metadata(const core::http::Query& query, std::string_view content_type) {
  static const core::json::StringRule kFileName{
      .min_length = 1,
      .max_length = kEvidenceFileNameMax,
      .check = safe_file_name,
      .check_message = "must be a plain file name (no path, quotes, semicolons or control characters)",
      .trim = false};
  EvidenceMetadata out;
  core::json::QueryReader in(query);
  auto file_name = in.optional_string("fileName", kFileName);
  if (!file_name) in.add("fileName", "is required");
  out.ticket_id = in.optional_integer("ticketId", {.min = 1});
  out.company_id = in.optional_integer("companyId", {.min = 1});
  out.content_type = std::string(core::trim(content_type));
  if (out.content_type.empty()) out.content_type = "application/octet-stream";
  if (out.content_type.size() > kEvidenceContentTypeMax) in.add("Content-Type", "is longer than 200 characters");
  in.finish();
  out.file_name = std::move(*file_name);
  return out;
}

}  // namespace ops_console
