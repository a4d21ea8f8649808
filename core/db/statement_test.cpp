#include "core/db/statement.hpp"

#include <gtest/gtest.h>

using core::db::Composed;

TEST(Composed, BindsEachValueAsTheNextPlaceholderAndJoinsConditions) {
  Composed st;
  std::string where;
  EXPECT_EQ(st.bind(std::int64_t{7}), "$1");
  core::db::restrict(where, "p.pipeline_id = " + st.bind(std::string("x")));
  core::db::restrict(where, "p.flag");
  EXPECT_EQ(st.bind(std::optional<std::string>()), "$3");
  EXPECT_EQ(where, " WHERE p.pipeline_id = $2 AND p.flag");
  ASSERT_EQ(st.params.size(), 3u);
  EXPECT_EQ(st.params[0], "7");
  EXPECT_EQ(st.params[1], "x");
  EXPECT_EQ(st.params[2], std::nullopt);  // SQL NULL
}
