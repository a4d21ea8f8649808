// Log evidence (issue 33): upload tokens (shown once, revocable), the public upload route admitted
// before its body is read (token, metadata, its own size cap), the body streamed to storage in
// parts (nothing left of a refused or repeated one), a repeated upload recognised, the download as
// an attachment, and the daily retention on a hand-moved clock.
#include "core/testing/manual_clock.hpp"
#include "core/util/digest.hpp"
#include "ops_console/tests/console_fixture.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;
using ops_console::testing::kPassword;

struct LogEvidenceTest : ConsoleTest {
  std::string boss, tech;

  void start_evidence(std::map<std::string, std::string> env = {},
                      std::shared_ptr<core::async::Clock> clock = nullptr) {
    add_user("boss@msp.example", kPassword, true);
    add_user("tech@msp.example", kPassword);
    sql("INSERT INTO companies (id, company_name) VALUES (7, 'Contoso')");
    sql("INSERT INTO tickets (id, ticket_number, title, status, company_id) VALUES (42, 'T42', 'Backup failed', 1, 7)");
    start(std::move(env), std::move(clock));
    boss = sign_in("boss@msp.example", kPassword);
    tech = sign_in("tech@msp.example", kPassword);
  }
  // A new upload token, as its one answer shows it.
  json new_token(const std::string& name) {
    const auto res = call("POST", "/api/admin/upload-tokens", {{"name", name}}, boss);
    EXPECT_EQ(res.status, 201u) << res.body;
    return res.json();
  }
  core::testing::HttpResponse upload(const std::string& token, const std::string& query, const std::string& body,
                                     const std::string& content_type = "text/plain") {
    std::map<std::string, std::string> headers{{"Content-Type", content_type}};
    if (!token.empty()) headers["Authorization"] = "Bearer " + token;
    return core::testing::http(svc->port(), "POST", "/api/log-evidence" + query, body, headers);
  }
  std::string stored() { return sql("SELECT count(*) FROM log_evidence"); }
  // Uploads without a record (under way, or left by a failure) and parts without an upload: "0 0"
  // once every upload has ended.
  std::string unfinished() {
    return sql(
        "SELECT (SELECT count(*) FROM log_evidence_uploads u WHERE NOT EXISTS "
        "(SELECT 1 FROM log_evidence e WHERE e.id = u.id)) || ' ' || (SELECT count(*) FROM log_evidence_parts p "
        "WHERE NOT EXISTS (SELECT 1 FROM log_evidence e WHERE e.id = p.upload_id))");
  }
  // A request whose header announces a body that is never sent: the answer's status (a server that
  // waited for the body would time the test out instead).
  unsigned announced_only(const std::string& head) {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket socket(io);
    socket.connect({boost::asio::ip::make_address("127.0.0.1"), svc->port()});
    boost::asio::write(socket, boost::asio::buffer(head + "\r\n"));
    boost::beast::flat_buffer buffer;
    boost::beast::http::response<boost::beast::http::string_body> res;
    boost::beast::http::read(socket, buffer, res);
    return res.result_int();
  }
};

}  // namespace

TEST_F(LogEvidenceTest, AnUploadIsStoredWithItsDigestAndARepeatIsRecognised) {
  start_evidence();
  const json token = new_token("rmm scripts");
  ASSERT_TRUE(token["token"].is_string());
  // The list never shows the token again, nor its hash.
  const auto tokens = call("GET", "/api/admin/upload-tokens", nullptr, boss);
  EXPECT_EQ(tokens.status, 200u);
  EXPECT_EQ(tokens.body.find(token["token"].get<std::string>()), std::string::npos);
  EXPECT_EQ(call("GET", "/api/admin/upload-tokens", nullptr, tech).status, 403u);
  EXPECT_EQ(sql("SELECT token_hash = encode(sha256(convert_to('" + token["token"].get<std::string>() +
                "', 'UTF8')), 'hex') FROM upload_tokens"),
            "t");  // only its SHA-256 is kept

  const std::string log = std::string("line one\nline two\0binary", 24);
  const auto first = upload(token["token"], "?fileName=backup.log&ticketId=42&companyId=7", log);
  ASSERT_EQ(first.status, 201u) << first.body;
  const json record = first.json();
  EXPECT_EQ(record["size"], 24);
  EXPECT_EQ(record["sha256"],
            sql("SELECT encode(sha256(string_agg(bytes, ''::bytea ORDER BY seq)), 'hex') FROM log_evidence_parts"));
  EXPECT_EQ(record["fileName"], "backup.log");
  EXPECT_EQ(record["contentType"], "text/plain");
  EXPECT_EQ(record["ticketId"], 42);
  EXPECT_EQ(record["companyId"], 7);
  EXPECT_EQ(record["tokenName"], "rmm scripts");

  // The same bytes from the same source: the existing record, 200, nothing new.
  const auto again = upload(token["token"], "?fileName=backup-again.log", log);
  EXPECT_EQ(again.status, 200u) << again.body;
  EXPECT_EQ(again.json()["id"], record["id"]);
  EXPECT_EQ(stored(), "1");
  EXPECT_EQ(unfinished(), "0 0") << "the repeat's bytes are dropped";
  // From another source it is its own record.
  EXPECT_EQ(upload(new_token("tool")["token"], "?fileName=backup.log", log).status, 201u);
  EXPECT_EQ(stored(), "2");

  // Signed-in users list and download; the download is an attachment, never sniffed.
  const auto list = call("GET", "/api/log-evidence", nullptr, tech);
  ASSERT_EQ(list.status, 200u);
  EXPECT_EQ(list.json().size(), 2u);
  const std::string id = record["id"];
  EXPECT_EQ(call("GET", "/api/log-evidence/" + id, nullptr, tech).json()["sha256"], record["sha256"]);
  const auto content = call("GET", "/api/log-evidence/" + id + "/content", nullptr, tech);
  ASSERT_EQ(content.status, 200u);
  EXPECT_EQ(content.body, log);
  EXPECT_EQ(content.header("content-disposition"), "attachment; filename=\"backup.log\"");
  EXPECT_EQ(content.header("x-content-type-options"), "nosniff");
  EXPECT_EQ(content.header("content-type"), "application/octet-stream");
  EXPECT_EQ(call("GET", "/api/log-evidence/" + id + "/content").status, 401u);
  EXPECT_EQ(call("GET", "/api/log-evidence/00000000-0000-4000-8000-000000000000", nullptr, tech).status, 404u);
}

TEST_F(LogEvidenceTest, BadUploadsGetAProblemAndStoreNothing) {
  start_evidence({{"LOG_EVIDENCE_MAX_BYTES", "1000"}});
  const std::string token = new_token("rmm scripts")["token"];

  const auto none = upload("", "?fileName=a.log", "text");
  EXPECT_EQ(none.status, 401u) << none.body;
  EXPECT_NE(none.body.find("upload token is required"), std::string::npos);
  EXPECT_EQ(upload("upl_not-a-token", "?fileName=a.log", "text").status, 401u);

  const auto over = upload(token, "?fileName=a.log", std::string(1001, 'x'));
  EXPECT_EQ(over.status, 413u) << over.body;
  EXPECT_NE(over.body.find("exceeds 1000 bytes"), std::string::npos);
  EXPECT_EQ(upload(token, "?fileName=a.log", std::string(1000, 'x')).status, 201u);  // the cap itself is fine
  sql("DELETE FROM log_evidence_uploads");

  const auto ticket = upload(token, "?fileName=a.log&ticketId=999", "text");
  EXPECT_EQ(ticket.status, 400u) << ticket.body;
  EXPECT_EQ(ticket.json()["errors"][0]["field"], "ticketId");
  const auto company = upload(token, "?fileName=a.log&companyId=999", "text");
  EXPECT_EQ(company.status, 400u);
  EXPECT_EQ(company.json()["errors"][0]["field"], "companyId");

  const auto empty = upload(token, "?fileName=a.log", "");
  EXPECT_EQ(empty.status, 400u) << empty.body;
  EXPECT_EQ(empty.json()["errors"][0]["field"], "body");

  const auto nameless = upload(token, "", "text");
  EXPECT_EQ(nameless.status, 400u);
  EXPECT_EQ(nameless.json()["errors"][0]["field"], "fileName");
  EXPECT_EQ(upload(token, "?fileName=..%2Fetc%2Fpasswd", "text").status, 400u);
  EXPECT_EQ(upload(token, "?fileName=a%22b.log", "text").status, 400u);

  // Revoked: refused, and revoking twice is a 404.
  const std::string token_id = sql("SELECT id FROM upload_tokens");
  EXPECT_EQ(call("DELETE", "/api/admin/upload-tokens/" + token_id, nullptr, boss).status, 204u);
  const auto revoked = upload(token, "?fileName=a.log", "text");
  EXPECT_EQ(revoked.status, 401u);
  EXPECT_NE(revoked.body.find("revoked"), std::string::npos);
  EXPECT_EQ(call("DELETE", "/api/admin/upload-tokens/" + token_id, nullptr, boss).status, 404u);

  EXPECT_EQ(stored(), "0");
  EXPECT_EQ(unfinished(), "0 0");
}

// The body goes to storage 1 MiB at a time as it arrives: a large upload is its parts, read back
// whole; one that passes the cap after a part was stored leaves nothing.
TEST_F(LogEvidenceTest, TheBodyIsStoredInPartsAndOnePastTheCapLeavesNothing) {
  start_evidence({{"LOG_EVIDENCE_MAX_BYTES", std::to_string(3 * 1024 * 1024)}});
  const std::string token = new_token("rmm scripts")["token"];
  std::string log(2 * 1024 * 1024 + 512 * 1024, '\0');
  std::uint32_t x = 7;
  for (auto& c : log) c = static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);  // not compressible
  const auto res = upload(token, "?fileName=large.bin", log, "application/octet-stream");
  ASSERT_EQ(res.status, 201u) << res.body;
  const std::string id = res.json()["id"];
  EXPECT_EQ(res.json()["size"], log.size());
  EXPECT_EQ(res.json()["sha256"], core::sha256_hex(log));
  EXPECT_EQ(sql("SELECT string_agg(length(bytes)::text, ',' ORDER BY seq) FROM log_evidence_parts WHERE upload_id = '" +
                id + "'"),
            "1048576,1048576,524288");
  const auto content = call("GET", "/api/log-evidence/" + id + "/content", nullptr, tech);
  ASSERT_EQ(content.status, 200u);
  EXPECT_TRUE(content.body == log) << "the download is the upload, byte for byte";

  // chunked (no Content-Length to refuse it up front): 413 at the byte past the cap, after three
  // parts were stored, and they are dropped
  std::string chunked = "POST /api/log-evidence?fileName=over.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                        token + "\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 13; ++i) chunked += "40000\r\n" + std::string(0x40000, static_cast<char>('a' + i)) + "\r\n";
  chunked += "0\r\n\r\n";  // 3.25 MiB in all
  core::testing::HttpClient client(svc->port());
  client.send_raw(chunked);
  const auto over = client.read_response();
  EXPECT_EQ(over.status, 413u) << over.body;
  EXPECT_EQ(stored(), "1");
  EXPECT_EQ(unfinished(), "0 0");
}

// The upload's own cap replaces HTTP_MAX_BODY_BYTES for it alone; a refused caller's body is not read.
TEST_F(LogEvidenceTest, TheUploadHasItsOwnCapAndARefusedBodyIsNotRead) {
  start_evidence({{"HTTP_MAX_BODY_BYTES", "1000"}, {"LOG_EVIDENCE_MAX_BYTES", "5000"}});
  const std::string token = new_token("tool")["token"];
  EXPECT_EQ(upload(token, "?fileName=big.log", std::string(3000, 'y')).status, 201u);
  EXPECT_EQ(call("POST", "/api/auth/login", json{{"email", std::string(3000, 'y')}}).status, 413u);
  // Announced bigger than the cap, the body never sent: 413 once the header is read.
  EXPECT_EQ(announced_only("POST /api/log-evidence?fileName=x.log HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                           token + "\r\nContent-Length: 9999999\r\n"),
            413u);
  // A refused token with a body announced but never sent: answered without waiting for the body.
  EXPECT_EQ(announced_only("POST /api/log-evidence?fileName=x.log HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                           "upl_wrong\r\nContent-Length: 4000\r\n"),
            401u);
  EXPECT_EQ(stored(), "1");
}

TEST_F(LogEvidenceTest, RetentionDeletesOldEvidenceDaily) {
  auto clock = std::make_shared<core::testing::ManualClock>();
  start_evidence({{"LOG_EVIDENCE_RETENTION_DAYS", "30"}}, clock);
  const std::string token = new_token("tool")["token"];
  ASSERT_EQ(upload(token, "?fileName=old.log", "old").status, 201u);
  ASSERT_EQ(upload(token, "?fileName=recent.log", "recent").status, 201u);
  sql("UPDATE log_evidence SET uploaded_at = now() - interval '31 days' WHERE file_name = 'old.log'");
  sql("UPDATE log_evidence SET uploaded_at = now() - interval '29 days' WHERE file_name = 'recent.log'");
  // uploads a crash cut short, two days and an hour ago: the older one goes
  const std::string token_id = sql("SELECT id FROM upload_tokens");
  sql("INSERT INTO log_evidence_uploads (id, token_id, started_at) VALUES ('00000000-0000-4000-8000-000000000001', " +
      token_id + ", now() - interval '2 days'), ('00000000-0000-4000-8000-000000000002', " + token_id +
      ", now() - interval '1 hour')");
  sql("INSERT INTO log_evidence_parts (upload_id, seq, bytes) VALUES ('00000000-0000-4000-8000-000000000001', 0, "
      "'\\x00'), ('00000000-0000-4000-8000-000000000002', 0, '\\x00')");
  const int before = clock->rounds("log evidence retention");
  clock->advance(std::chrono::hours(23));
  EXPECT_EQ(clock->rounds("log evidence retention"), before);
  EXPECT_EQ(stored(), "2");
  clock->advance(std::chrono::hours(1));
  EXPECT_EQ(clock->rounds("log evidence retention"), before + 1);
  EXPECT_EQ(sql("SELECT string_agg(file_name, ',') FROM log_evidence"), "recent.log");
  EXPECT_EQ(sql("SELECT string_agg(id::text, ',') FROM log_evidence_uploads u WHERE NOT EXISTS "
                "(SELECT 1 FROM log_evidence e WHERE e.id = u.id)"),
            "00000000-0000-4000-8000-000000000002");
  EXPECT_EQ(sql("SELECT count(*) FROM log_evidence_parts"), "2") << "recent.log's and the hour-old upload's";
}
