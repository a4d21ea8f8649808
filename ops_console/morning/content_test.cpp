// The morning summary's text from its figures (morning/content.hpp): the sections asked for and
// no other, in the order asked, each figure where a reader looks for it, long lists cut short,
// and the states of a section that has nothing to show.
#include "ops_console/morning/content.hpp"

#include <gtest/gtest.h>

namespace {

using nlohmann::json;
using ops_console::morning::render;

json figure(int today, int yesterday, double average7) {
  return {{"today", today}, {"yesterday", yesterday}, {"delta", today - yesterday}, {"average7", average7}};
}

json user(const std::string& name, const std::string& account) {
  return {{"user", name}, {"realname", "Real " + name}, {"account", account}, {"email", name + "@x.example"}};
}

json figures() {
  json breaches = json::array();
  for (int i = 1; i <= 10; ++i)
    breaches.push_back({{"ticketNumber", "T2026.000" + std::to_string(i)},
                        {"title", "Printer " + std::to_string(i) + " offline"},
                        {"companyName", i == 1 ? json("Contoso") : json(nullptr)},
                        {"due", "2026-11-22 14:0" + std::to_string(i % 10)}});
  json bypass = json::array();
  for (int i = 0; i < 12; ++i) bypass.push_back(user("bypass" + std::to_string(i), "Child A"));
  return {
      {"date", "2026-11-23"},
      {"dateText", "Monday 23 November 2026"},
      {"time", "06:31"},
      {"timezone", "Pacific/Auckland"},
      {"overview",
       {{"opened", figure(2, 14, 11.3)},
        {"resolved", figure(0, 12, 10.0)},
        {"openTotal", figure(48, 47, 45.3)},
        {"slaBreaches", figure(13, 9, 4.1)}}},
      {"breaches", breaches},
      {"integrations", json::array({{{"key", "psa"}, {"state", "ok"}},
                                    {{"key", "mfa"},
                                     {"state", "failing"},
                                     {"lastError", "HTTP 503: down for maintenance"},
                                     {"lastFailure", "2026-11-23 05:10"}},
                                    {{"key", "pax8"}, {"state", "unknown"}}})},
      {"workers",
       json::array(
           {{{"name", "analyzer"}, {"configured", true}, {"status", "down"}, {"failuresLastHour", 3}, {"inFlight", 0}},
            {{"name", "remote-management"}, {"configured", false}},
            {{"name", "sync-scheduler"},
             {"configured", true},
             {"status", "ok"},
             {"failuresLastHour", 0},
             {"inFlight", 1}}})},
      {"mfa",
       {{"state", "ok"},
        {"bypass", bypass},
        {"disabled", json::array({user("carol", "parent")})},
        {"failedAccounts", json::array({{{"name", "Child B"}, {"error", "40301: Access forbidden"}}})}}}};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(MorningSummaryContent, EverySectionShowsItsFiguresInTheOrderAsked) {
  const auto r = render(figures(), {"mfa", "overview", "slaBreaches", "integrations", "workers"});
  EXPECT_EQ(r.title, "Morning summary, Monday 23 November 2026");
  const std::string& t = r.text;
  EXPECT_TRUE(t.starts_with("_Figures at 06:31 Pacific/Auckland._\n")) << t;
  EXPECT_LT(t.find("*MFA*"), t.find("*Tickets*"));  // the order asked, not a fixed one
  EXPECT_LT(t.find("*Tickets*"), t.find("*SLA breaches*"));

  EXPECT_TRUE(has(t, "• Opened: 14 yesterday (7-day average 11.3), 2 so far today\n")) << t;
  EXPECT_TRUE(has(t, "• Resolved: 12 yesterday (7-day average 10.0), 0 so far today\n")) << t;
  EXPECT_TRUE(has(t, "• Open: 48 now (47 at the end of yesterday)\n")) << t;

  EXPECT_TRUE(has(t, "13 open tickets are past their due time (9 at the end of yesterday):\n")) << t;
  EXPECT_TRUE(has(t, "• T2026.0001 Printer 1 offline (Contoso), due 2026-11-22 14:01\n")) << t;
  EXPECT_TRUE(has(t, "• T2026.0002 Printer 2 offline, due 2026-11-22 14:02\n")) << t;  // no company: none shown
  EXPECT_TRUE(has(t, "… and 3 more\n")) << t;  // 13 breached, the ten most overdue listed

  EXPECT_TRUE(has(t, "1 failing:\n• mfa: HTTP 503: down for maintenance (last failure 2026-11-23 05:10)\n")) << t;
  EXPECT_FALSE(has(t, "• psa")) << t;

  EXPECT_TRUE(has(t, "• analyzer: down, 3 failures in the last hour, nothing in flight\n")) << t;
  EXPECT_TRUE(has(t, "Not configured: remote-management.")) << t;
  EXPECT_FALSE(has(t, "sync-scheduler")) << t;  // an ok worker is not named while others are in trouble

  EXPECT_TRUE(has(t, "12 users in bypass, 1 disabled:\n")) << t;
  EXPECT_TRUE(has(t, "• bypass: bypass0 (Real bypass0, Child A)\n")) << t;
  EXPECT_TRUE(has(t, "• bypass: bypass9 (Real bypass9, Child A)\n")) << t;
  EXPECT_FALSE(has(t, "bypass10")) << t;
  EXPECT_TRUE(has(t, "… and 2 more in bypass\n")) << t;
  EXPECT_TRUE(has(t, "• disabled: carol (Real carol, parent)\n")) << t;
  EXPECT_TRUE(has(t, "Account Child B could not be read: 40301: Access forbidden")) << t;
  EXPECT_FALSE(t.ends_with("\n"));
}

TEST(MorningSummaryContent, OnlyTheSectionsAskedForAndQuietStates) {
  json f = figures();
  const auto only = render(f, {"overview"});
  EXPECT_TRUE(has(only.text, "*Tickets*"));
  for (const char* other : {"*SLA breaches*", "*Integrations*", "*Workers*", "*MFA*", "T2026", "bypass"})
    EXPECT_FALSE(has(only.text, other)) << other << " in " << only.text;

  // Nothing wrong: each section says so in a line.
  f["overview"]["slaBreaches"] = figure(0, 1, 0.4);
  f["breaches"] = json::array();
  f["integrations"] = json::array({{{"key", "psa"}, {"state", "ok"}}, {{"key", "pax8"}, {"state", "unknown"}}});
  f["workers"][0]["status"] = "ok";
  f["mfa"] = {{"state", "ok"}, {"bypass", json::array()}, {"disabled", json::array()}};
  const auto quiet = render(f, {"slaBreaches", "integrations", "workers", "mfa"});
  EXPECT_TRUE(has(quiet.text, "No open ticket is past its due time (1 at the end of yesterday).")) << quiet.text;
  EXPECT_TRUE(has(quiet.text, "None failing (1 ok, 1 without recorded calls).")) << quiet.text;
  EXPECT_TRUE(has(quiet.text, "All ok (analyzer, sync-scheduler).")) << quiet.text;
  EXPECT_TRUE(has(quiet.text, "No user in bypass or disabled.")) << quiet.text;

  // MFA without settings, switched off, or failing: the section says which.
  f["mfa"] = {{"state", "notConfigured"}};
  EXPECT_TRUE(has(render(f, {"mfa"}).text, "*MFA*\nNot configured: the MFA_* settings are unset."));
  f["mfa"] = {{"state", "off"}};
  EXPECT_TRUE(has(render(f, {"mfa"}).text, "The MFA integration is switched off."));
  f["mfa"] = {{"state", "error"}, {"error", "40101: Missing request credentials"}};
  EXPECT_TRUE(has(render(f, {"mfa"}).text, "could not be read: 40101: Missing request credentials"));

  // Figures that are missing altogether do not stop the message.
  const auto bare = render(json::object(), {"overview", "slaBreaches", "integrations", "workers", "mfa"});
  EXPECT_EQ(bare.title, "Morning summary, ?");
  EXPECT_TRUE(has(bare.text, "The ticket figures could not be read."));
  EXPECT_TRUE(has(bare.text, "The integration states could not be read."));
}
