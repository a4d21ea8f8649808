#include "core/json/kept.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using core::json::Kept;
using core::json::kept_items;
using nlohmann::json;

namespace {

// What the kept text must parse to: the list read whole, then trimmed.
json trimmed(const std::string& text, const Kept& kept) {
  json list = json::parse(text);
  for (auto& item : list) {
    if (!item.is_object() || kept.fields.empty()) continue;
    json out = json::object();
    for (const auto& [k, v] : item.items())
      if (std::find(kept.fields.begin(), kept.fields.end(), k) != kept.fields.end()) out[k] = v;
    for (auto& [k, v] : out.items()) {
      if (!v.is_array() || kept.nested.empty()) continue;
      for (auto& o : v) {
        if (!o.is_object()) continue;
        json inner = json::object();
        for (const auto& [ik, iv] : o.items())
          if (std::find(kept.nested.begin(), kept.nested.end(), ik) != kept.nested.end()) inner[ik] = iv;
        o = inner;
      }
    }
    item = out;
  }
  return list;
}

}  // namespace

TEST(KeptItems, KeepsTheNamedFieldsOfEachItemAsWritten) {
  const std::string text =
      R"([{"agent_id":"a1","hostname":"pc-1","cpu":{"cores":[1,2]},"last_seen":"2026-11-27T08:00:00Z","ram":1.50},
          {"hostname":"pc-2","agent_id":"a2","disks":[{"size":1e3}],"ram":-0.0}])";
  const Kept kept{.fields = {"agent_id", "hostname", "ram"}};
  const auto out = kept_items(text, kept);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, R"([{"agent_id":"a1","hostname":"pc-1","ram":1.50},{"hostname":"pc-2","agent_id":"a2","ram":-0.0}])");
  EXPECT_EQ(json::parse(*out), trimmed(text, kept));
}

TEST(KeptItems, KeepsTheNestedFieldsOfAListField) {
  const std::string text =
      R"([{"id":1,"name":"Contoso","sites":[{"id":10,"client":1,"name":"HQ","agent_count":4},{"id":11,"name":"Lab","x":[]}],
           "extra":[{"id":99}]},
          {"id":2,"name":"Fabrikam","sites":[]}])";
  const Kept kept{.fields = {"id", "name", "sites"}, .nested = {"id", "client", "name"}};
  const auto out = kept_items(text, kept);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, R"([{"id":1,"name":"Contoso","sites":[{"id":10,"client":1,"name":"HQ"},{"id":11,"name":"Lab"}]},)"
                  R"({"id":2,"name":"Fabrikam","sites":[]}])");
  EXPECT_EQ(json::parse(*out), trimmed(text, kept));
}

TEST(KeptItems, ItemsThatAreNotObjectsStayAsTheyAre) {
  const auto out = kept_items(R"([1, "two", null, [3, {"a": 1}], {"a": true, "b": false}])", {.fields = {"a"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, R"([1,"two",null,[3,{"a":1}],{"a":true}])");
  EXPECT_EQ(kept_items("[]", {.fields = {"a"}}), "[]");
  EXPECT_EQ(kept_items(R"([{"a":{"b":[{"c":1}]}}])", {}), R"([{"a":{"b":[{"c":1}]}}])");  // nothing named: all
}

TEST(KeptItems, StringsAreWrittenAgainWithTheirEscapes) {
  const std::string text = R"([{"s":"quote \" slash \\ nl \n tab \t bell \u0007 é \u00e9 \ud83d\ude00 \/"}])";
  const auto out = kept_items(text, {.fields = {"s"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(json::parse(*out), json::parse(text));
  EXPECT_NE(out->find(R"(\u0007)"), std::string::npos);
}

TEST(KeptItems, AnythingButAJsonListIsRefused) {
  for (const std::string text : {"", "{}", R"({"a":[1]})", "1", R"("x")", "null", "[1,", "[1] 2", R"([{"a":1,}])",
                                 "[\"\xff\"]", R"([{"a":"unterminated}])"})
    EXPECT_FALSE(kept_items(text, {.fields = {"a"}})) << text;
}
