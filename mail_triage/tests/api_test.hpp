#pragma once
// The fixture of mail-triage's API tests: a fresh migrated database, the service on a free port
// with one API key, and authenticated calls.
#include "mail_triage/service.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

namespace mail_triage::testing {

using core::testing::HttpResponse;

struct ApiTest : ::testing::Test {
  static inline const std::map<std::string, std::string> kAuth = {{"Authorization", "Bearer k"}};

  core::testing::TestDatabase database{definition().migrations};
  core::testing::RunningService svc{definition(), database.url(), {{"API_KEYS", "k"}}};

  // An authenticated request; a JSON body unless `body` is null.
  HttpResponse call(const std::string& method, const std::string& target, const nlohmann::json& body = nullptr) {
    return core::testing::http(svc.port(), method, target, body.is_null() ? "" : body.dump(), kAuth);
  }
  std::string sql(const std::string& statement) { return core::testing::sql(database.url(), statement); }

  // The `field` of each entry in a problem's `errors`, in order.
  static std::vector<std::string> error_fields(const HttpResponse& res) {
    std::vector<std::string> fields;
    const auto problem = res.json();
    for (const auto& e : problem["errors"]) fields.push_back(e["field"]);
    return fields;
  }
  static std::string id_of(const HttpResponse& res) { return res.json()["id"]; }
};

}  // namespace mail_triage::testing
