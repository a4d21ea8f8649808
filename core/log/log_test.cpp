#include "core/log/log.hpp"

#include <gtest/gtest.h>

using core::log::append_json_string;

TEST(Log, JsonStringEscaping) {
  std::string out;
  append_json_string(out, "a\"b\\c\nd\te\x01");
  EXPECT_EQ(out, R"("a\"b\\c\nd\te\u0001")");
  EXPECT_EQ(nlohmann::json::parse(out), "a\"b\\c\nd\te\x01");
}

TEST(Log, EscapedStringIsAlwaysValidJson) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string out;
  append_json_string(out, all);
  const auto parsed = nlohmann::json::parse(out);  // throws if invalid
  EXPECT_EQ(parsed.get<std::string>().substr(0, 128), all.substr(0, 128));
}
