#include "ops_console/api/log_evidence.hpp"

#include "ops_console/api/log_evidence_upload.hpp"

#include "core/app/json_rows.hpp"
#include "core/async/schedule.hpp"
#include "core/db/errors.hpp"
#include "core/http/bearer.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;
using nlohmann::json;

namespace {

constexpr std::string_view kUploadPath = "/api/log-evidence";

// Tokens render as upload_token_json() (migration 0028): never the token or its hash.
constexpr std::string_view kListUploadTokens = R"sql(
  SELECT coalesce(json_agg(upload_token_json(t) ORDER BY t.created_at DESC, t.id DESC), '[]'::json) FROM upload_tokens t
)sql";
constexpr std::string_view kCreateUploadToken = R"sql(
  INSERT INTO upload_tokens AS t (name, token_hash, created_by) VALUES ($1, $2, $3) RETURNING upload_token_json(t)
)sql";
constexpr std::string_view kRevokeUploadToken =
    "UPDATE upload_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id";
constexpr std::string_view kUploadTokenByHash =
    "SELECT id, token_hash, revoked_at IS NOT NULL FROM upload_tokens WHERE token_hash = $1";

constexpr std::string_view kEvidenceTicketExists = "SELECT 1 FROM tickets WHERE id = $1 AND deleted_at IS NULL";
constexpr std::string_view kEvidenceCompanyExists = "SELECT 1 FROM companies WHERE id = $1 AND deleted_at IS NULL";

// An upload's bytes are stored as they arrive, in parts of kPartBytes (migration 0029): the upload's
// row at its first byte, a part each time kPartBytes have come, then its record.
constexpr std::string_view kStartUpload = "INSERT INTO log_evidence_uploads (token_id) VALUES ($1) RETURNING id::text";
// $3: the part in base64 (the pool binds text).
constexpr std::string_view kStorePart =
    "INSERT INTO log_evidence_parts (upload_id, seq, bytes) VALUES ($1::uuid, $2, decode($3, 'base64'))";
constexpr std::string_view kDropUpload = "DELETE FROM log_evidence_uploads WHERE id = $1::uuid";

// The record of a complete upload. A repeat of the same bytes by the same token inserts nothing;
// the upload is then dropped and the existing record read by kExistingEvidence.
constexpr std::string_view kInsertEvidence = R"sql(
  WITH used AS (UPDATE upload_tokens SET last_used_at = now() WHERE id = $1)
  INSERT INTO log_evidence AS e (id, token_id, sha256, size_bytes, content_type, file_name, ticket_id, company_id)
  VALUES ($7::uuid, $1, $2, $3, $4, $5, $6, $8)
  ON CONFLICT (token_id, sha256) DO NOTHING
  RETURNING log_evidence_json(e)
)sql";
constexpr std::string_view kExistingEvidence =
    "SELECT log_evidence_json(e) FROM log_evidence e WHERE token_id = $1 AND sha256 = $2";

// Records render as log_evidence_json() (migration 0028), without their bytes.
constexpr std::string_view kListEvidence = R"sql(
  SELECT coalesce(json_agg(log_evidence_json(e) ORDER BY e.uploaded_at DESC, e.id), '[]'::json)
  FROM (SELECT * FROM log_evidence ORDER BY uploaded_at DESC, id LIMIT 500) e
)sql";
constexpr std::string_view kOneEvidence = "SELECT log_evidence_json(e) FROM log_evidence e WHERE id = $1";
constexpr std::string_view kEvidenceContent = R"sql(
  SELECT e.file_name,
         (SELECT translate(encode(string_agg(p.bytes, ''::bytea ORDER BY p.seq), 'base64'), E'\n', '')
          FROM log_evidence_parts p WHERE p.upload_id = e.id)
  FROM log_evidence e WHERE e.id = $1
)sql";

// Records past their retention, and uploads cut short (by a crash) more than a day ago.
constexpr std::string_view kRetainEvidence = R"sql(
  WITH gone AS (
    DELETE FROM log_evidence_uploads u USING log_evidence e
    WHERE e.id = u.id AND e.uploaded_at < now() - make_interval(days => $1) RETURNING 1),
  abandoned AS (
    DELETE FROM log_evidence_uploads u
    WHERE u.started_at < now() - interval '1 day' AND NOT EXISTS (SELECT 1 FROM log_evidence e WHERE e.id = u.id)
    RETURNING 1)
  SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM abandoned)
)sql";

constexpr std::size_t kUploadTokenBytes = 32;
constexpr std::size_t kPartBytes = 1024 * 1024;

const core::json::StringRule kUploadTokenName{.min_length = 1, .max_length = 100};

// What the upload's gate learned: the token, and the upload's metadata, checked.
struct EvidenceUpload {
  std::int64_t token_id = 0;
  std::string file_name;
  std::string content_type;
  std::optional<std::int64_t> ticket_id;
  std::optional<std::int64_t> company_id;
};

// The gate of POST /api/log-evidence: the token (looked up by its SHA-256, then compared in
// constant time), then the metadata against the copy. Throws the Problem that refuses.
awaitable<void> admit_upload(core::db::Pool& db, Request& req) {
  const auto token = core::http::bearer_token(req.header("authorization"));
  if (!token)
    throw Problem::unauthorized("an upload token is required (Authorization: Bearer <token>)")
        .with_header(core::http::bhttp::field::www_authenticate, "Bearer");
  const std::string hash = identity::agent_token_hash(*token);
  const auto found = co_await db.query(kUploadTokenByHash, hash);
  if (found.empty() || !core::constant_time_equals(found.front().text(1), hash))
    throw Problem::unauthorized("the upload token is not valid")
        .with_header(core::http::bhttp::field::www_authenticate, "Bearer error=\"invalid_token\"");
  if (found.front().get<bool>(2))
    throw Problem::unauthorized("the upload token has been revoked")
        .with_header(core::http::bhttp::field::www_authenticate, "Bearer error=\"invalid_token\"");

  EvidenceUpload upload{.token_id = found.front().get<std::int64_t>(0)};
  if (req.malformed_query) throw Problem::bad_request("the query string has a malformed percent-escape");
  auto metadata = read_evidence_metadata(req.query, req.header("content-type"));
  upload.file_name = std::move(metadata.file_name);
  upload.content_type = std::move(metadata.content_type);
  upload.ticket_id = metadata.ticket_id;
  upload.company_id = metadata.company_id;
  if (upload.ticket_id && (co_await db.query(kEvidenceTicketExists, *upload.ticket_id)).empty())
    throw Problem::invalid_field("ticketId", "names no ticket of the copy");
  if (upload.company_id && (co_await db.query(kEvidenceCompanyExists, *upload.company_id)).empty())
    throw Problem::invalid_field("companyId", "names no company of the copy");
  req.set<EvidenceUpload>(std::move(upload));
}

awaitable<void> retain_evidence(core::db::Pool& db, int days) {
  const auto rows = co_await db.query(kRetainEvidence, days);
  const auto deleted = rows.front().get<std::int64_t>(0);
  const auto abandoned = rows.front().get<std::int64_t>(1);
  if (deleted > 0) core::log::info("log evidence past its retention deleted", {{"records", deleted}, {"days", days}});
  if (abandoned > 0) core::log::info("log evidence uploads cut short deleted", {{"uploads", abandoned}});
}

// The upload's body, stored as it arrives (kPartBytes at a time) while its SHA-256 is computed; then
// its record, or the existing one for a repeat. Whatever fails on the way (413 past the cap, the
// client gone, the database) drops what was stored of it. Answers 201 with a new record, 200 with
// the one a repeat matched.
awaitable<Response> receive_upload(core::db::Pool& db, Request& req, const EvidenceUpload& upload) {
  std::optional<std::string> upload_id;  // the upload's row, made at its first byte
  std::exception_ptr failure;
  try {
    core::Sha256 digest;
    std::int64_t size = 0;
    int seq = 0;
    std::string part;
    const auto store = [&](std::size_t bytes) -> awaitable<void> {  // the first `bytes` of `part`
      if (!upload_id) upload_id = (co_await db.query(kStartUpload, upload.token_id)).front().get<std::string>(0);
      const int part_seq = seq++;
      co_await db.query(kStorePart, *upload_id, part_seq, core::base64(std::string_view(part).substr(0, bytes)));
      part.erase(0, bytes);
    };
    for (;;) {
      auto piece = co_await req.body_stream->next();
      if (!piece) break;
      digest.update(*piece);
      size += static_cast<std::int64_t>(piece->size());
      part += *piece;
      while (part.size() >= kPartBytes) co_await store(kPartBytes);
    }
    if (size == 0) throw Problem::invalid_field("body", "is empty: the file to keep is the request body");
    if (!part.empty()) co_await store(part.size());
    const std::string sha256 = digest.hex();
    const auto rows = co_await db.query(kInsertEvidence, upload.token_id, sha256, size, upload.content_type,
                                        upload.file_name, upload.ticket_id, *upload_id, upload.company_id);
    if (!rows.empty()) co_return Response::json_text(std::string(rows.front().text(0)), core::http::Status::created);
    co_await db.query(kDropUpload, *std::exchange(upload_id, std::nullopt));
    const auto existing = co_await db.query(kExistingEvidence, upload.token_id, sha256);
    if (existing.empty()) throw Problem::conflict("the same upload is under way; try again");
    co_return Response::json_text(std::string(existing.front().text(0)));
  } catch (...) {
    failure = std::current_exception();
  }
  if (upload_id) {
    try {
      co_await db.query(kDropUpload, *upload_id);
    } catch (const std::exception& e) {  // the retention job drops it a day later
      core::log::warn("a failed log evidence upload could not be dropped", {{"error", e.what()}});
    }
  }
  std::rethrow_exception(failure);
}

}  // namespace

LogEvidenceSettings read_log_evidence_settings(core::config::Reader& env) {
  LogEvidenceSettings s;
  s.max_bytes = static_cast<std::size_t>(
      env.integer("LOG_EVIDENCE_MAX_BYTES", 10 * 1024 * 1024,
                  "largest log-evidence upload (else 413, nothing kept); HTTP_MAX_BODY_BYTES does not apply to it",
                  {1, 1LL << 30}));
  s.retention_days = static_cast<int>(env.integer("LOG_EVIDENCE_RETENTION_DAYS", 90,
                                                  "days an uploaded log is kept (deleted by a daily job)", {1, 36500}));
  return s;
}

void install_log_evidence_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                 const LogEvidenceSettings& settings) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/admin/upload-tokens", Access::admin(),
             [&db](Request&) { return core::app::json_document(db, kListUploadTokens); });

  routes.post("/api/admin/upload-tokens", Access::admin(), [&db](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::string name = in.string("name", kUploadTokenName);
    in.finish();
    const std::string token = "upl_" + core::random_base64url(kUploadTokenBytes);
    const auto rows =
        co_await db.query(kCreateUploadToken, name, identity::agent_token_hash(token), identity::current_user(req).id);
    co_return core::app::shown_once(rows.front().text(0), json{{"token", token}}, core::http::Status::created);
  });

  routes.del("/api/admin/upload-tokens/{id:int}", Access::admin(), [&db](Request& req) -> awaitable<Response> {
    const auto token_id = core::parse_int64(req.param("id")).value_or(0);
    if ((co_await db.query(kRevokeUploadToken, token_id)).empty())
      throw Problem::not_found("no upload token " + std::to_string(token_id) + " that is not revoked");
    co_return Response::empty();
  });

  // The upload: admitted before its body is read (the gate), then its body stored as it arrives.
  ctx.router.gate_body(
      core::http::Verb::post, std::string(kUploadPath),
      {.limit = settings.max_bytes, .admit = [&db](Request& req) { return admit_upload(db, req); }, .stream = true});
  routes.post(kUploadPath, Access::open(), [&db](Request& req) -> awaitable<Response> {
    // The server ran the gate and hands over the body as it arrives (core/app/service.cpp sets the gates).
    const auto* upload = req.get<EvidenceUpload>();
    if (!upload || !req.body_stream) throw std::logic_error("POST /api/log-evidence runs behind its streaming gate");
    co_return co_await receive_upload(db, req, *upload);
  });

  routes.get(kUploadPath, [&db](Request&) { return core::app::json_document(db, kListEvidence); });

  routes.get("/api/log-evidence/{id:uuid}", [&db](Request& req) -> awaitable<Response> {
    const auto rows = co_await db.query(kOneEvidence, std::string(req.param("id")));
    if (rows.empty()) throw Problem::not_found("no log evidence " + std::string(req.param("id")));
    co_return Response::json_text(std::string(rows.front().text(0)));
  });

  // Always an attachment of an opaque type, never sniffed: an uploaded HTML file is not rendered.
  routes.get("/api/log-evidence/{id:uuid}/content", [&db](Request& req) -> awaitable<Response> {
    const auto rows = co_await db.query(kEvidenceContent, std::string(req.param("id")));
    if (rows.empty()) throw Problem::not_found("no log evidence " + std::string(req.param("id")));
    auto bytes = core::from_base64(rows.front().text(1));
    if (!bytes) throw std::runtime_error("log evidence content could not be decoded");
    Response res;
    res.body = std::move(*bytes);
    res.headers.set(core::http::bhttp::field::content_type, "application/octet-stream");
    res.headers.set(core::http::bhttp::field::content_disposition,
                    "attachment; filename=\"" + rows.front().get<std::string>(0) + "\"");
    res.headers.set("X-Content-Type-Options", "nosniff");
    res.headers.set(core::http::bhttp::field::cache_control, "private, no-store");
    co_return res;
  });

  auto retain = core::async::Schedule::start(
      ctx.executor, std::chrono::hours(24),
      [&db, days = settings.retention_days]() { return retain_evidence(db, days); }, "log evidence retention",
      ctx.clock);
  // Not woken at start: a request's first answers stay free of it (RoutesTest counts the database work of
  // a refused request), and a day's delay is within the retention's meaning.
  ctx.stop_hooks.push_back([retain] { retain->stop(); });
}

}  // namespace ops_console
