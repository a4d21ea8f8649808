#pragma once
// Roles belong to the cluster, not to a test's database, and tests run in parallel: each test
// names its roles uniquely and drops them at its end, whether the service did or not.
#include "core/testing/testing.hpp"

#include <string>
#include <vector>

namespace mail_triage::testing {

class CreatedRoles {
 public:
  explicit CreatedRoles(std::string database_url) : url_(std::move(database_url)) {}
  CreatedRoles(const CreatedRoles&) = delete;
  ~CreatedRoles() {
    for (const auto& r : names_) {
      try {  // DROP OWNED runs in the test's database, where the grants are
        core::testing::sql(url_, "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + r +
                                     "') THEN "
                                     "EXECUTE 'DROP OWNED BY " +
                                     r + "'; EXECUTE 'DROP ROLE " + r + "'; END IF; END $$");
      } catch (const std::exception&) {
      }
    }
  }
  void push_back(std::string role) { names_.push_back(std::move(role)); }

 private:
  std::string url_;
  std::vector<std::string> names_;
};

}  // namespace mail_triage::testing
