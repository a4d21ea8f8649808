#pragma once
// Log evidence (issue 33; spec "Public routes": the log-evidence upload is on the allowlist; the
// rest is ours):
//   POST   /api/admin/upload-tokens           admin: {name} → 201 the token, {token} shown once (only its SHA-256 kept)
//   GET    /api/admin/upload-tokens           admin: [upload_token_json()] (migration 0028)
//   DELETE /api/admin/upload-tokens/{id:int}  admin: revokes (its uploads stay); 404 unknown or revoked already
//   POST   /api/log-evidence                  public, `Authorization: Bearer <upload token>`: the raw body is the
//          file; ?fileName= (required), ?ticketId=, ?companyId= (validated against the copy), Content-Type kept.
//          201 the record, 200 the existing one when this token uploaded the same bytes before.
//   GET    /api/log-evidence                  signed-in: the records, newest first (500 at most)
//   GET    /api/log-evidence/{id:uuid}        signed-in: a record
//   GET    /api/log-evidence/{id:uuid}/content  signed-in: the bytes, always as an attachment
//
// The upload admits its body itself (core::http::Router::gate_body): the token, the query and the
// ticket or company are checked once the header is read, before a byte of the body is, and the
// body is streamed to storage as it arrives, with LOG_EVIDENCE_MAX_BYTES as its cap instead of
// HTTP_MAX_BODY_BYTES (a larger Content-Length: 413 at once; a longer chunked body: 413 at the byte
// past the cap, and what was stored of it is dropped). The bytes go to log_evidence_parts 1 MiB at a
// time (migration 0029): an upload holds one part in memory, whatever its size. A refused upload's
// body is never read, and nothing is stored. A daily job (every 24 hours from start) deletes the
// records older than LOG_EVIDENCE_RETENTION_DAYS, and uploads a crash cut short a day ago.
#include "core/app/service.hpp"
#include "core/config/config.hpp"
#include "ops_console/identity/identity.hpp"

#include <chrono>
#include <cstddef>
#include <memory>

namespace ops_console {

struct LogEvidenceSettings {
  std::size_t max_bytes = 10 * 1024 * 1024;
  int retention_days = 90;
};

LogEvidenceSettings read_log_evidence_settings(core::config::Reader& env);

void install_log_evidence_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                                 const LogEvidenceSettings& settings);

}  // namespace ops_console
