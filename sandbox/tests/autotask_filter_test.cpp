// The Autotask fake's filter: every operator, groups, Autotask's case rules, its null semantics,
// and what it refuses or drops.
#include "sandbox/autotask_filter.hpp"

#include <gtest/gtest.h>

using nlohmann::json;
using sandbox::autotask::find_entity;
using sandbox::autotask::parse_filter;
using sandbox::autotask::QueryError;

namespace {

const json kTicket = {{"id", 71005},
                      {"title", "Outlook keeps asking for password"},
                      {"status", 8},
                      {"priority", 2},
                      {"queueID", 29682833},
                      {"assignedResourceID", nullptr},
                      {"createDate", "2026-03-02T09:15:27.120Z"},
                      {"estimatedHours", 1.5}};

bool matches(const json& filter, const json& row = kTicket, const char* entity = "Tickets") {
  return parse_filter(filter, *find_entity(entity)).matches(row);
}

std::string refusal(const json& filter) {
  try {
    parse_filter(filter, *find_entity("Tickets"));
  } catch (const QueryError& e) {
    return e.message;
  }
  return "";
}

}  // namespace

TEST(AutotaskFilter, ComparisonOperatorsOnNumbers) {
  EXPECT_TRUE(matches(json::parse(R"([{"op":"eq","field":"status","value":8}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"eq","field":"status","value":5}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"noteq","field":"status","value":5}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"gt","field":"priority","value":1}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"gt","field":"priority","value":2}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"gte","field":"priority","value":2}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"lt","field":"id","value":71006}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"lt","field":"id","value":71005}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"lte","field":"id","value":71005}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"gt","field":"estimatedHours","value":1.25}])")));
  // Numbers sent as strings are numbers.
  EXPECT_TRUE(matches(json::parse(R"([{"op":"eq","field":"status","value":"8"}])")));
}

TEST(AutotaskFilter, DatesCompareAsInstantsWhateverTheirForm) {
  EXPECT_TRUE(matches(json::parse(R"([{"op":"gt","field":"createDate","value":"2026-03-02T09:15:27Z"}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"gt","field":"createDate","value":"2026-03-02T09:15:28Z"}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"gte","field":"createDate","value":"2026-03-02"}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"lt","field":"createDate","value":"2026-03-02"}])")));
  // No offset: UTC. An offset moves the instant.
  EXPECT_TRUE(matches(json::parse(R"([{"op":"lt","field":"createDate","value":"2026-03-02T09:16:00"}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"lt","field":"createDate","value":"2026-03-02T10:15:00+01:00"}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"eq","field":"createDate","value":"2026-03-02T10:15:27.12+01:00"}])")));
}

TEST(AutotaskFilter, StringOperatorsIgnoreCase) {
  EXPECT_TRUE(matches(json::parse(R"([{"op":"eq","field":"title","value":"OUTLOOK KEEPS ASKING FOR PASSWORD"}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"beginsWith","field":"title","value":"outlook"}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"beginsWith","field":"title","value":"password"}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"endsWith","field":"title","value":"PASSWORD"}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"contains","field":"title","value":"Asking"}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"contains","field":"title","value":"printer"}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"gt","field":"title","value":"apple"}])")));
}

TEST(AutotaskFilter, NullFieldsFailEveryComparisonButExistTests) {
  EXPECT_TRUE(matches(json::parse(R"([{"op":"notExist","field":"assignedResourceID"}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"exist","field":"assignedResourceID"}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"exist","field":"queueID"}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"notExist","field":"queueID"}])")));
  // As in SQL: NULL <> 5 and NULL NOT IN (...) are not true.
  EXPECT_FALSE(matches(json::parse(R"([{"op":"noteq","field":"assignedResourceID","value":5}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"notIn","field":"assignedResourceID","value":[5]}])")));
  // A field the row lacks is null.
  EXPECT_TRUE(matches(json::parse(R"([{"op":"notExist","field":"completedDate"}])")));
}

TEST(AutotaskFilter, ListOperators) {
  EXPECT_TRUE(matches(json::parse(R"([{"op":"in","field":"status","value":[1,7,8]}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"in","field":"status","value":[1,7]}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"notIn","field":"status","value":[5]}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"notIn","field":"status","value":[5,8]}])")));
  EXPECT_TRUE(
      matches(json::parse(R"([{"op":"in","field":"title","value":["x","outlook keeps asking for password"]}])")));
}

TEST(AutotaskFilter, TopLevelIsAndGroupsNest) {
  EXPECT_TRUE(
      matches(json::parse(R"([{"op":"eq","field":"status","value":8},{"op":"eq","field":"priority","value":2}])")));
  EXPECT_FALSE(
      matches(json::parse(R"([{"op":"eq","field":"status","value":8},{"op":"eq","field":"priority","value":1}])")));
  EXPECT_TRUE(matches(json::parse(
      R"([{"op":"or","items":[{"op":"eq","field":"status","value":5},{"op":"eq","field":"priority","value":2}]}])")));
  EXPECT_FALSE(matches(json::parse(
      R"([{"op":"or","items":[{"op":"eq","field":"status","value":5},{"op":"eq","field":"priority","value":1}]}])")));
  // status 8 AND (priority 1 OR (queue Level I AND not assigned))
  EXPECT_TRUE(matches(json::parse(R"([{"op":"eq","field":"status","value":8},
      {"op":"or","items":[{"op":"eq","field":"priority","value":1},
        {"op":"and","items":[{"op":"eq","field":"queueID","value":29682833},{"op":"notExist","field":"assignedResourceID"}]}]}])")));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"eq","field":"status","value":8},
      {"op":"or","items":[{"op":"eq","field":"priority","value":1},
        {"op":"and","items":[{"op":"eq","field":"queueID","value":8},{"op":"notExist","field":"assignedResourceID"}]}]}])")));
}

TEST(AutotaskFilter, NamesAndKeysAreCaseInsensitive) {
  EXPECT_TRUE(matches(json::parse(R"([{"Op":"EQ","Field":"STATUS","Value":8}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"beginswith","field":"Title","value":"out"}])")));
  EXPECT_TRUE(matches(json::parse(R"([{"op":"OR","Items":[{"op":"eq","field":"id","value":71005}]}])")));
}

TEST(AutotaskFilter, BooleansAreTrueOrFalseOnly) {
  const json company = {{"id", 174}, {"isActive", true}};
  EXPECT_TRUE(matches(json::parse(R"([{"op":"eq","field":"isActive","value":true}])"), company, "Companies"));
  EXPECT_FALSE(matches(json::parse(R"([{"op":"eq","field":"isActive","value":"false"}])"), company, "Companies"));
  EXPECT_THROW(parse_filter(json::parse(R"([{"op":"eq","field":"isActive","value":1}])"), *find_entity("Companies")),
               QueryError);
  EXPECT_THROW(parse_filter(json::parse(R"([{"op":"eq","field":"isActive","value":null}])"), *find_entity("Companies")),
               QueryError);
}

TEST(AutotaskFilter, RefusesWhatAutotaskRefuses) {
  EXPECT_EQ(refusal(json::parse(R"([{"op":"eq","field":"projectName","value":1}])")),
            "Unable to find projectName in the Ticket Entity.");
  EXPECT_NE(refusal(json::parse(R"([{"op":"eq","field":"status","value":"five"}])")), "");
  EXPECT_NE(refusal(json::parse(R"([{"op":"contains","field":"status","value":"5"}])")), "");
  EXPECT_NE(refusal(json::parse(R"([{"op":"in","field":"status","value":5}])")), "");
  EXPECT_NE(refusal(json::parse(R"([{"op":"eq","value":5}])")), "");
  EXPECT_NE(refusal(json::parse(R"([{"op":"or"}])")), "");
  EXPECT_NE(refusal(json::parse(R"(["status eq 5"])")), "");
  json deep = json::parse(R"([{"op":"eq","field":"id","value":1}])");
  for (int i = 0; i < 40; ++i) deep = json::array({{{"op", "and"}, {"items", deep}}});
  EXPECT_EQ(refusal(deep), "The filter is nested too deeply.");
}

TEST(AutotaskFilter, AnUnknownOperatorIsDroppedNotRefused) {
  // `ne` is not Autotask's (noteq is): the condition is discarded and everything matches.
  EXPECT_TRUE(matches(json::parse(R"([{"op":"ne","field":"status","value":8}])")));
  EXPECT_FALSE(
      matches(json::parse(R"([{"op":"ne","field":"status","value":8},{"op":"eq","field":"status","value":5}])")));
  // Even on a field the entity does not have: the operator is looked at first.
  EXPECT_TRUE(matches(json::parse(R"([{"op":"like","field":"nonsense","value":1}])")));
}
