#include "core/config/config.hpp"

#include <gtest/gtest.h>

using namespace core::config;

TEST(Dotenv, ParsesTheUsualForms) {
  const auto vars = parse_dotenv(
      "# comment\n\nexport A=1\nB = two words # trailing comment\nC=\"quoted\\nline\"\nD='lit $x \\n'\nE=\n");
  ASSERT_EQ(vars.size(), 5u);
  EXPECT_EQ(vars[0], (std::pair<std::string, std::string>{"A", "1"}));
  EXPECT_EQ(vars[1].second, "two words");
  EXPECT_EQ(vars[2].second, "quoted\nline");
  EXPECT_EQ(vars[3].second, "lit $x \\n");
  EXPECT_EQ(vars[4].second, "");
}

TEST(Dotenv, NamesTheBadLine) {
  try {
    parse_dotenv("A=1\nthis is not an assignment\n");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), ".env line 2: expected NAME=value");
  }
  EXPECT_THROW(parse_dotenv("1A=x"), ConfigError);
  EXPECT_THROW(parse_dotenv("A=\"open"), ConfigError);
  EXPECT_THROW(parse_dotenv("A=\"x\" y"), ConfigError);
}

TEST(Reader, TypedValuesAndDefaults) {
  Reader r({{"PORT", "9000"}, {"FLAG", "yes"}, {"KEYS", " a, ,b ,"}, {"MODE", "rules"}});
  EXPECT_EQ(r.integer("PORT", 8080, "port", {0, 65535}), 9000);
  EXPECT_EQ(r.integer("OTHER", 5, "n"), 5);
  EXPECT_TRUE(r.boolean("FLAG", false, "f"));
  EXPECT_EQ(r.list("KEYS", "", "k"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.one_of("MODE", "openai", {"openai", "rules"}, "m"), "rules");
  EXPECT_EQ(r.string("MISSING", "fallback", "s"), "fallback");
  EXPECT_NO_THROW(r.finish());
}

TEST(Reader, DecimalsWithinTheirRange) {
  Reader r({{"PRICE", " 0.15 "}, {"NEG", "-1"}, {"WORD", "cheap"}, {"HALF", "2."}});
  EXPECT_DOUBLE_EQ(r.decimal("PRICE", 1, "p", 0, 1000), 0.15);
  EXPECT_DOUBLE_EQ(r.decimal("UNSET", 2.5, "p", 0, 1000), 2.5);
  r.decimal("NEG", 0, "p", 0, 1000);
  r.decimal("WORD", 0, "p", 0, 1000);
  r.decimal("HALF", 0, "p", 0, 1000);
  try {
    r.finish();
    FAIL();
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("NEG: -1 is outside 0..1000"), std::string::npos) << msg;
    EXPECT_NE(msg.find("WORD: 'cheap' is not a number"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("HALF"), std::string::npos) << msg;  // "2." is 2, as strtod reads it
  }
}

TEST(Reader, ReportsEveryInvalidValueAtOnce) {
  Reader r({{"PORT", "70000"}, {"THREADS", "many"}, {"FLAG", "perhaps"}, {"MODE", "x"}});
  r.integer("PORT", 8080, "port", {0, 65535});
  r.integer("THREADS", 1, "threads");
  r.boolean("FLAG", false, "f");
  r.one_of("MODE", "a", {"a", "b"}, "m");
  r.required("API_KEYS", "keys");
  try {
    r.finish();
    FAIL();
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("PORT: 70000 is outside 0..65535"), std::string::npos) << msg;
    EXPECT_NE(msg.find("THREADS: 'many' is not a whole number"), std::string::npos);
    EXPECT_NE(msg.find("FLAG: 'perhaps' is not a boolean"), std::string::npos);
    EXPECT_NE(msg.find("MODE: 'x' is not one of a|b"), std::string::npos);
    EXPECT_NE(msg.find("API_KEYS: is required"), std::string::npos);
  }
}

// The one rule for a vendor's base URL (issue 31): absolute http(s) with a host, or unset; the
// end as the client wants it.
TEST(Reader, UrlsAreAbsoluteHttpWithTheirEndAsAsked) {
  using End = Reader::UrlEnd;
  Reader r({{"A", "https://api.example/v2///"},
            {"B", "http://127.0.0.1:8090/psa"},
            {"C", "https://x.example/cb/"},
            {"EMPTY", ""}});
  EXPECT_EQ(r.url("A", "", "a"), "https://api.example/v2");
  EXPECT_EQ(r.url("B", "", "b", End::one_slash), "http://127.0.0.1:8090/psa/");
  EXPECT_EQ(r.url("C", "", "c", End::as_given), "https://x.example/cb/");
  EXPECT_EQ(r.url("EMPTY", "https://default.example", "e"), "https://default.example");  // empty reads as unset
  EXPECT_EQ(r.url("EMPTY", "", "e"), "");  // unset and no default: not configured
  EXPECT_EQ(r.url("UNSET", "https://default.example/", "u"), "https://default.example");
  EXPECT_NO_THROW(r.finish());

  Reader bad({{"FTP", "ftp://files.example"}, {"REL", "/api"}, {"NOHOST", "https:///x"}, {"BARE", "http://"}});
  for (const char* name : {"FTP", "REL", "NOHOST", "BARE"}) bad.url(name, "", name);
  try {
    bad.finish();
    FAIL();
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    for (const char* name : {"FTP", "REL", "NOHOST", "BARE"})
      EXPECT_NE(msg.find(std::string(name) + ": must be an absolute http(s) URL"), std::string::npos) << msg;
  }
}

TEST(Reader, DescribingCollectsHelpWithoutErrors) {
  auto r = Reader::describing();
  r.integer("PORT", 8080, "TCP port");
  r.required("API_KEYS", "bearer keys");
  r.secret("LLM_API_KEY", "model key");
  EXPECT_NO_THROW(r.finish());
  ASSERT_EQ(r.described().size(), 3u);
  const auto help = format_help(r.described());
  EXPECT_NE(help.find("  PORT         TCP port [default: 8080]\n"), std::string::npos) << help;
  EXPECT_NE(help.find("  API_KEYS     bearer keys [default: (required)]\n"), std::string::npos) << help;
}

TEST(Reader, HostPortsAreAnAddressAndAPortOrOff) {
  Reader r({{"V4", "127.0.0.1:9464"}, {"V6", "[::1]:0"}, {"OFF", ""}});
  const auto v4 = r.host_port("V4", "", "v4");
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 9464);
  const auto v6 = r.host_port("V6", "", "v6");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  EXPECT_FALSE(r.host_port("OFF", "127.0.0.1:9463", "set empty: off").has_value());
  const auto fallback = r.host_port("UNSET", "127.0.0.1:9463", "unset: the default");
  ASSERT_TRUE(fallback.has_value());
  EXPECT_EQ(fallback->port, 9463);
  EXPECT_NO_THROW(r.finish());

  const std::vector<std::string> wrong = {"9464",     "localhost:9464", "127.0.0.1", "127.0.0.1:99999",
                                          "::1:9464", "127.0.0.1:x"};
  for (const auto& value : wrong) {
    Reader bad({{"METRICS_ADDRESS", value}});
    EXPECT_FALSE(bad.host_port("METRICS_ADDRESS", "127.0.0.1:9463", "m").has_value()) << value;
    try {
      bad.finish();
      ADD_FAILURE() << value << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("METRICS_ADDRESS: '" + value + "' is not an IP address and a port"),
                std::string::npos)
          << e.what();
    }
  }
}
