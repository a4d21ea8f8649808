// Phishing (issue 21) against the Autotask fake: access and the analyze route's errors, a report
// read from an attached .eml and from pasted headers, stored once however often it runs, grouped
// into campaigns by shared indicators, the campaign list (limit, offset, status) and the detail.
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/phishing_mails.hpp"
#include "sandbox/sandbox.hpp"

#include <map>
#include <set>

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;
using sandbox::phishing::reported_mail;

using ops_console::testing::kPassword;

struct PhishingTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string analyst, reader, plain;
  std::int64_t next_ticket = 9001;

  void start_console(bool with_psa = true) {
    add_user("analyst@msp.example", kPassword, false, {{"phishing", "read"}, {"phishing", "analyze"}});
    add_user("reader@msp.example", kPassword, false, {{"phishing", "read"}});
    add_user("plain@msp.example", kPassword);
    std::map<std::string, std::string> env;
    if (with_psa)
      env = {{"PSA_BASE_URL", fakes.url() + "/autotask/atservicesrest/"},
             {"PSA_USERNAME", "api@msp.example"},
             {"PSA_SECRET", "sandbox-secret"},
             {"PSA_INTEGRATION_CODE", "sandbox-integration"},
             {"PSA_SYNC_INTERVAL_MINUTES", "0"}};
    start(env);
    analyst = sign_in("analyst@msp.example", kPassword);
    reader = sign_in("reader@msp.example", kPassword);
    plain = sign_in("plain@msp.example", kPassword);
  }
  // A ticket in the PSA and in the copy (as a sync leaves it), raised by `requester`.
  std::int64_t ticket(const std::string& title, const std::string& description = "Please check this e-mail.",
                      const std::string& requester = "jamie.parker@contoso-legal.example") {
    const auto id = next_ticket++;
    fakes.autotask().add("Tickets", {{"id", id},
                                     {"title", title},
                                     {"description", description},
                                     {"status", 1},
                                     {"companyID", 1},
                                     {"contactID", id}});
    sql("INSERT INTO contacts (id, email_address) VALUES (" + std::to_string(id) + ", '" + requester + "')");
    sql("INSERT INTO tickets (id, title, description, status, contact_id) VALUES (" + std::to_string(id) + ", $t$" +
        title + "$t$, $d$" + description + "$d$, 1, " + std::to_string(id) + ")");
    return id;
  }
  std::int64_t reported(const std::string& key, const std::string& requester = "jamie.parker@contoso-legal.example") {
    const auto& mail = reported_mail(key);
    const auto id = ticket("Phishing report: " + mail.subject, "Forwarded as suspected phishing.", requester);
    fakes.autotask().attach(id, mail.file_name, mail.content_type, mail.raw);
    return id;
  }
  core::testing::HttpResponse analyze(std::int64_t id, const std::string& token) {
    return call("POST", "/api/phishing/tickets/" + std::to_string(id) + "/analyze", nullptr, token);
  }
  json analyzed(std::int64_t id, unsigned status = 201) {
    const auto res = analyze(id, analyst);
    EXPECT_EQ(res.status, status) << res.body;
    return res.json();
  }
  json get(const std::string& path) {
    const auto res = call("GET", path, nullptr, reader);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }
  static std::string field_of(const core::testing::HttpResponse& res) {
    const auto body = res.json();
    return body.contains("errors") && !body["errors"].empty() ? body["errors"][0]["field"].get<std::string>() : "";
  }
  std::string counts() {
    return sql(
        "SELECT (SELECT count(*) FROM phishing_campaigns) || ' ' || (SELECT count(*) FROM phishing_reports) || "
        "' ' || (SELECT count(*) FROM phishing_messages) || ' ' || (SELECT count(*) FROM phishing_indicators)");
  }
};

}  // namespace

TEST_F(PhishingTest, AccessComesFirstThenTheTicketIsCheckedAndNothingIsStoredOnARefusal) {
  start_console();
  const auto screenshot = ticket("Printer jammed");
  fakes.autotask().attach(screenshot, "jam.png", "image/png", "\x89PNG\r\n\x1a\n....");
  const auto broken = ticket("Phishing report: odd mail");
  fakes.autotask().attach(broken, "odd.eml", "application/octet-stream", "%PDF-1.4 not a message at all");
  const auto lure = reported("m365-password");

  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"POST", "/api/phishing/tickets/" + std::to_string(lure) + "/analyze"},
           {"GET", "/api/phishing/campaigns"},
           {"GET", "/api/phishing/campaigns/00000000-0000-4000-8000-000000000000"}}) {
    EXPECT_EQ(call(method, path).status, 401u) << path;
    EXPECT_EQ(call(method, path, nullptr, plain).status, 403u) << path;
  }
  EXPECT_EQ(analyze(lure, reader).status, 403u);  // read is not analyze
  const auto bad = call("POST", "/api/phishing/tickets/12ab/analyze", nullptr, analyst);
  EXPECT_EQ(bad.status, 400u) << bad.body;
  EXPECT_EQ(field_of(bad), "ticket_id");
  EXPECT_EQ(call("POST", "/api/phishing/tickets/-5/analyze", nullptr, analyst).status, 400u);
  EXPECT_EQ(analyze(424242, analyst).status, 404u);  // not in the copy
  const auto ordinary = analyze(screenshot, analyst);
  EXPECT_EQ(ordinary.status, 400u) << ordinary.body;
  EXPECT_EQ(ordinary.json()["type"], "/problems/not-a-phishing-report");
  const auto unreadable = analyze(broken, analyst);
  EXPECT_EQ(unreadable.status, 400u) << unreadable.body;
  EXPECT_NE(unreadable.json()["detail"].get<std::string>().find("odd.eml"), std::string::npos);
  // The PSA failing is a 502, and changes nothing either.
  fakes.autotask().set_faults({.server_errors = 1, .status = 500});
  EXPECT_EQ(analyze(lure, analyst).status, 502u);
  EXPECT_EQ(counts(), "0 0 0 0");
}

TEST_F(PhishingTest, ReadsAnAttachedMessageAndPastedHeadersAndRunningAgainDuplicatesNothing) {
  start_console();
  const auto lure = reported("m365-password", "j.parker@contoso-legal.example");
  fakes.autotask().attach(lure, "screenshot.png", "image/png", "\x89PNG\r\n\x1a\n....");  // not a message: skipped

  const json first = analyzed(lure);
  EXPECT_EQ(first["ticketId"], lure);
  EXPECT_EQ(first["campaignCreated"], true);
  EXPECT_EQ(first["messagesRead"], 1);
  const json& campaign = first["campaign"];
  EXPECT_EQ(campaign["status"], "open");
  EXPECT_EQ(campaign["requesterEmail"], "j.parker@contoso-legal.example");
  ASSERT_EQ(campaign["messages"].size(), 1u);
  const json& message = campaign["messages"][0];
  EXPECT_EQ(message["subject"], "\xE2\x9A\xA0 Action required: your password expires today");
  EXPECT_EQ(message["source"], "attachment");
  EXPECT_EQ(message["fileName"], reported_mail("m365-password").file_name);
  EXPECT_EQ(message["from"]["address"], "no-reply@microsoft-365-support.example");
  EXPECT_EQ(message["authentication"], json({{"spf", "fail"}, {"dkim", "none"}, {"dmarc", "fail"}}));
  EXPECT_EQ(message["sentAt"], "2026-04-14T08:12:27+00:00");
  EXPECT_EQ(campaign["firstSeen"], "2026-04-14T08:12:27+00:00");
  EXPECT_EQ(sql("SELECT string_agg(value, ',' ORDER BY value) FROM phishing_indicators WHERE kind = 'url_domain'"),
            "login.m365-secure-login.example,privacy.m365-secure-login.example");
  EXPECT_EQ(sql("SELECT count(*) FROM phishing_indicators WHERE kind IN ('spf', 'dkim', 'dmarc', 'received_hop')"),
            "5");
  const auto stored = counts();

  // Again: the same campaign, no new row anywhere, 200 instead of 201.
  const json again = analyzed(lure, 200);
  EXPECT_EQ(again["campaign"]["id"], campaign["id"]);
  EXPECT_EQ(again["campaignCreated"], false);
  EXPECT_EQ(counts(), stored);

  // Pasted headers in the description are a report too, without any attachment.
  const auto pasted = ticket("Phishing report: PayPal", sandbox::phishing::pasted_headers_description());
  const json headers = analyzed(pasted);
  ASSERT_EQ(headers["campaign"]["messages"].size(), 1u);
  EXPECT_EQ(headers["campaign"]["messages"][0]["source"], "pasted_headers");
  EXPECT_EQ(headers["campaign"]["messages"][0]["subject"], "Your account access has been limited");
  EXPECT_EQ(headers["campaign"]["messages"][0]["replyTo"], "resolution-center@paypa1-security.example");
  EXPECT_NE(headers["campaign"]["id"], campaign["id"]);  // nothing shared with the first
  analyzed(pasted, 200);
  EXPECT_EQ(sql("SELECT count(*) FROM phishing_messages m JOIN phishing_reports r ON r.id = m.report_id "
                "WHERE r.ticket_id = " +
                std::to_string(pasted)),
            "1");
}

TEST_F(PhishingTest, RelatedReportsShareACampaignAndTheListAndDetailShowThem) {
  start_console();
  const json a = analyzed(reported("m365-password", "first@contoso-legal.example"));
  const json b = analyzed(reported("mailbox-quota", "second@contoso-legal.example"));  // the same URL domain
  const json c = analyzed(reported("invoice-html"));
  const json d = analyzed(reported("newsletter"));
  const std::string campaign = a["campaign"]["id"];
  EXPECT_EQ(b["campaign"]["id"], campaign);
  EXPECT_EQ(b["campaignCreated"], false);
  EXPECT_NE(c["campaign"]["id"], campaign);
  EXPECT_NE(d["campaign"]["id"], campaign);
  EXPECT_NE(d["campaign"]["id"], c["campaign"]["id"]);

  // The detail: both reports, both messages with their subjects, the shared indicator counted
  // twice, the first report's requester.
  const json detail = get("/api/phishing/campaigns/" + campaign);
  EXPECT_EQ(detail["reports"].size(), 2u);
  EXPECT_EQ(detail["reports"][1]["requesterEmail"], "second@contoso-legal.example");
  EXPECT_EQ(detail["requesterEmail"], "first@contoso-legal.example");
  ASSERT_EQ(detail["messages"].size(), 2u);
  EXPECT_EQ(detail["messages"][1]["subject"], "Your mailbox is 98% full");
  EXPECT_NE(std::find(detail["indicators"].begin(), detail["indicators"].end(),
                      json({{"kind", "url_domain"}, {"value", "login.m365-secure-login.example"}, {"messages", 2}})),
            detail["indicators"].end());
  EXPECT_EQ(detail["classifications"], json::array());
  sql("INSERT INTO phishing_classifications (campaign_id, verdict, confidence, reasons, model, prompt_tokens, "
      "completion_tokens) VALUES ('" +
      campaign + "', 'malicious', 0.93, '[\"lookalike login domain\"]', 'gpt-test', 812, 64)");
  const json classified = get("/api/phishing/campaigns/" + campaign);
  ASSERT_EQ(classified["classifications"].size(), 1u);
  EXPECT_EQ(classified["classifications"][0]["verdict"], "malicious");
  EXPECT_EQ(classified["classifications"][0]["reasons"], json::array({"lookalike login domain"}));
  const auto malformed = call("GET", "/api/phishing/campaigns/not-a-uuid", nullptr, reader);
  EXPECT_EQ(malformed.status, 400u);
  EXPECT_EQ(field_of(malformed), "id");
  EXPECT_EQ(call("GET", "/api/phishing/campaigns/00000000-0000-4000-8000-000000000000", nullptr, reader).status, 404u);

  // The list: 50 by default, at most 200, an explicit 0 honoured; bad values name their field.
  const json all = get("/api/phishing/campaigns");
  EXPECT_EQ(all["total"], 3);
  EXPECT_EQ(all["limit"], 50);
  EXPECT_EQ(all["offset"], 0);
  ASSERT_EQ(all["items"].size(), 3u);
  const auto first =
      std::find_if(all["items"].begin(), all["items"].end(), [&](const json& i) { return i["id"] == campaign; });
  ASSERT_NE(first, all["items"].end());
  EXPECT_EQ((*first)["reports"], 2);
  EXPECT_EQ((*first)["latestClassification"]["verdict"], "malicious");
  EXPECT_EQ(get("/api/phishing/campaigns?limit=500")["limit"], 200);
  const json none = get("/api/phishing/campaigns?limit=0");
  EXPECT_EQ(none["items"], json::array());
  EXPECT_EQ(none["total"], 3);
  const json second_page = get("/api/phishing/campaigns?limit=2&offset=2");
  EXPECT_EQ(second_page["items"].size(), 1u);
  for (const auto& [query, field] : std::vector<std::pair<std::string, std::string>>{
           {"limit=-1", "limit"}, {"limit=ten", "limit"}, {"offset=-1", "offset"}, {"status=pending", "status"}}) {
    const auto res = call("GET", "/api/phishing/campaigns?" + query, nullptr, reader);
    EXPECT_EQ(res.status, 400u) << query;
    EXPECT_EQ(field_of(res), field) << query;
  }

  // Closed by an analyst (PATCH): out of the open list and its total, into the closed one; a new
  // related report no longer joins it.
  const auto closing = call("PATCH", "/api/phishing/campaigns/" + campaign, {{"status", "closed"}}, analyst);
  ASSERT_EQ(closing.status, 200u) << closing.body;
  EXPECT_EQ(closing.json()["status"], "closed");
  EXPECT_EQ(closing.json()["reports"].size(), 2u);  // the campaign in full, its reports kept
  const json open = get("/api/phishing/campaigns?status=open");
  EXPECT_EQ(open["total"], 2);
  EXPECT_EQ(open["items"].size(), 2u);
  const json closed = get("/api/phishing/campaigns?status=closed&limit=0");
  EXPECT_EQ(closed["total"], 1);
  EXPECT_EQ(closed["items"], json::array());
  const json late = analyzed(reported("mailbox-quota"));
  EXPECT_EQ(late["campaignCreated"], true);
  EXPECT_NE(late["campaign"]["id"], campaign);

  // Reopened, it is open again (the late report keeps the campaign it started).
  const auto reopening = call("PATCH", "/api/phishing/campaigns/" + campaign, {{"status", "open"}}, analyst);
  ASSERT_EQ(reopening.status, 200u) << reopening.body;
  EXPECT_EQ(reopening.json()["status"], "open");
  EXPECT_EQ(get("/api/phishing/campaigns/" + campaign)["status"], "open");
  EXPECT_EQ(get("/api/phishing/campaigns?status=open")["total"], 4);
}

// Closing and reopening: perm(phishing, analyze); the status must be open or closed; an unknown
// or malformed campaign is a 404 or a 400 naming id; a refused request changes nothing.
TEST_F(PhishingTest, ACampaignIsClosedAndReopenedByAnAnalystOnly) {
  start_console();
  const std::string campaign = analyzed(reported("m365-password"))["campaign"]["id"];
  const std::string path = "/api/phishing/campaigns/" + campaign;
  EXPECT_EQ(call("PATCH", path, {{"status", "closed"}}).status, 401u);
  EXPECT_EQ(call("PATCH", path, {{"status", "closed"}}, reader).status, 403u);  // read, not analyze
  EXPECT_EQ(call("PATCH", path, {{"status", "closed"}}, plain).status, 403u);
  for (const json& body : {json{{"status", "archived"}}, json{{"status", 1}}, json::object()}) {
    const auto res = call("PATCH", path, body, analyst);
    EXPECT_EQ(res.status, 400u) << body.dump();
    EXPECT_EQ(field_of(res), "status") << body.dump();
  }
  const auto malformed = call("PATCH", "/api/phishing/campaigns/not-a-uuid", {{"status", "closed"}}, analyst);
  EXPECT_EQ(malformed.status, 400u);
  EXPECT_EQ(field_of(malformed), "id");
  EXPECT_EQ(
      call("PATCH", "/api/phishing/campaigns/00000000-0000-4000-8000-000000000000", {{"status", "closed"}}, analyst)
          .status,
      404u);
  EXPECT_EQ(get(path)["status"], "open");  // nothing above changed it
  EXPECT_EQ(call("PATCH", path, {{"status", "closed"}}, analyst).json()["status"], "closed");
  EXPECT_EQ(call("PATCH", path, {{"status", "closed"}}, analyst).status, 200u);  // closing twice is no error
}

TEST_F(PhishingTest, WithoutThePsaOnlyPastedHeadersCanBeRead) {
  start_console(false);
  const json headers = analyzed(ticket("Phishing report: PayPal", sandbox::phishing::pasted_headers_description()));
  EXPECT_EQ(headers["campaign"]["messages"][0]["subject"], "Your account access has been limited");
  const auto attached_only = analyze(ticket("Phishing report: attached"), analyst);
  EXPECT_EQ(attached_only.status, 503u) << attached_only.body;
  EXPECT_NE(attached_only.json()["detail"].get<std::string>().find("PSA_BASE_URL"), std::string::npos);
}

TEST_F(PhishingTest, TheSeededMspsReportsAnalyseIntoTheirCampaigns) {
  fakes.autotask().seed({.seed = 3,
                         .companies = 6,
                         .contacts = 30,
                         .resources = 3,
                         .tickets = 80,
                         .time_entries = 0,
                         .projects = 0,
                         .tasks = 0,
                         .contracts = 0,
                         .configuration_items = 0,
                         .ticket_tags = 0,
                         .days = 10});
  start_console();
  std::map<std::string, std::string> campaign_of;  // by ticket title
  std::string requester;
  for (const auto& t : fakes.autotask().rows("Tickets")) {
    const std::string title = t["title"];
    if (!title.starts_with("Phishing report: ")) continue;
    // The copy as a sync leaves it: the ticket and its contact.
    const auto contact = fakes.autotask().row("Contacts", t["contactID"].get<std::int64_t>()).value();
    requester = contact["emailAddress"];
    sql("INSERT INTO contacts (id, email_address) VALUES (" + contact["id"].dump() + ", '" + requester +
        "') ON CONFLICT DO NOTHING");
    sql("INSERT INTO tickets (id, title, description, status, contact_id) VALUES (" + t["id"].dump() + ", $t$" + title +
        "$t$, $d$" + t["description"].get<std::string>() + "$d$, 1, " + contact["id"].dump() + ")");
    const json report = analyzed(t["id"].get<std::int64_t>());
    campaign_of[title] = report["campaign"]["id"];
    for (const auto& r : report["campaign"]["reports"])
      if (r["ticketId"] == t["id"]) EXPECT_EQ(r["requesterEmail"], requester) << title;
  }
  ASSERT_EQ(campaign_of.size(), 7u);  // six attached messages, one pasted header block
  const auto m365 = campaign_of.at("Phishing report: " + reported_mail("m365-password").subject);
  EXPECT_EQ(campaign_of.at("Phishing report: " + reported_mail("mailbox-quota").subject), m365);
  std::set<std::string> campaigns;
  for (const auto& [title, campaign] : campaign_of) campaigns.insert(campaign);
  EXPECT_EQ(campaigns.size(), 6u);  // the two lures linking to one login page share theirs
  EXPECT_EQ(sql("SELECT count(*) FROM phishing_messages WHERE source = 'pasted_headers'"), "1");
  EXPECT_EQ(sql("SELECT count(*) FROM phishing_indicators WHERE kind = 'attachment_sha256'"), "2");
}
