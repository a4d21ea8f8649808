#pragma once
// A running ops-console over a fresh database, with helpers for users, sessions and calls.
#include "core/testing/testing.hpp"
#include "ops_console/identity/password.hpp"
#include "ops_console/service.hpp"

#include <gtest/gtest.h>

#include <sodium.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <functional>

namespace ops_console::testing {

using core::testing::HttpResponse;
using nlohmann::json;

// Every test user's password.
inline constexpr const char* kPassword = "correct horse battery";

struct ConsoleTest : ::testing::Test {
  core::testing::TestDatabase database{ops_console::definition().migrations};
  std::unique_ptr<core::testing::RunningService> svc;

  // `clock`: what the service's schedules wait on (a core::testing::ManualClock), else the steady clock.
  void start(std::map<std::string, std::string> env = {}, std::shared_ptr<core::async::Clock> clock = nullptr) {
    env.emplace("LOGIN_DELAY_MS", "1");
    // No trends kept, so no background read at start (api/dashboard.cpp): a test that counts the
    // database's work counts its requests' alone. The dashboard tests set TRENDS_KEEP_SECONDS.
    env.emplace("TRENDS_KEEP_SECONDS", "0");
    svc = std::make_unique<core::testing::RunningService>(
        ops_console::definition(), database.url(), core::config::Environment(env.begin(), env.end()), std::move(clock));
  }
  std::string sql(const std::string& s) { return core::testing::sql(database.url(), s); }

  // Kill -9 mid-item (README, "Reliability under kill -9"): runs the ops-console binary as a child
  // process over this test's database with `env`, calls `begin` with its port when the item is one
  // a request starts, waits until `in_flight` holds (the item has reached the fake that answers it
  // slowly), and kills the child with SIGKILL. Another instance then finds what the crash left.
  // Call it under ASSERT_NO_FATAL_FAILURE.
  void kill_mid_item(std::map<std::string, std::string> env, const std::function<bool()>& in_flight,
                     const std::function<void(std::uint16_t port)>& begin = {}) {
    env["DATABASE_URL"] = database.url();
    env["PORT"] = "0";
    env["METRICS_ADDRESS"] = "127.0.0.1:0";  // not the default port, which another run may hold
    env["DB_STARTUP_WAIT_SECONDS"] = "0";
    env.emplace("LOGIN_DELAY_MS", "1");
    core::testing::Process child(OPS_CONSOLE_BINARY, {}, env);
    const auto listening = child.wait_for_log("listening");
    ASSERT_TRUE(listening) << child.stderr_text();
    if (begin) begin((*listening)["port"].get<std::uint16_t>());
    ASSERT_TRUE(core::testing::eventually(in_flight, std::chrono::seconds(20))) << child.stderr_text();
    child.signal(SIGKILL);
    ASSERT_TRUE(child.wait_exit().has_value());
  }

  // A test user's password hash: argon2id as the service writes it, at libsodium's least cost. The
  // service verifies a hash by the parameters it carries, so sign-in runs the real check, in
  // microseconds rather than the 0.1-0.2 s the interactive cost takes on this machine (tests of the
  // hashing itself use identity::hash_password).
  static std::string test_password_hash(const std::string& password) {
    char out[crypto_pwhash_STRBYTES];
    if (sodium_init() < 0 || crypto_pwhash_str_alg(out, password.data(), password.size(), crypto_pwhash_OPSLIMIT_MIN,
                                                   crypto_pwhash_MEMLIMIT_MIN, crypto_pwhash_ALG_ARGON2ID13) != 0)
      throw std::runtime_error("password hashing failed");
    return out;
  }

  // A user with a password; returns the id.
  std::string add_user(const std::string& email, const std::string& password, bool admin = false,
                       const std::vector<std::pair<std::string, std::string>>& permissions = {}) {
    const std::string id =
        sql("INSERT INTO users (email, name, password_hash, is_admin) VALUES ('" + email + "', 'Name of " + email +
            "', '" + test_password_hash(password) + "', " + (admin ? "true" : "false") + ") RETURNING id");
    for (const auto& [r, a] : permissions)
      sql("INSERT INTO user_permissions VALUES (" + id + ", '" + r + "', '" + a + "')");
    return id;
  }
  HttpResponse call(const std::string& method, const std::string& path, const json& body = nullptr,
                    const std::string& token = "", std::map<std::string, std::string> headers = {}) {
    if (!token.empty()) headers["Cookie"] = "ops_session=" + token;
    return core::testing::http(svc->port(), method, path, body.is_null() ? "" : body.dump(), headers);
  }
  static std::string token_of(const HttpResponse& res) {
    const std::string c = res.header("set-cookie");
    const auto start = c.find("ops_session=") + 12;
    return c.substr(start, c.find(';', start) - start);
  }
  std::string sign_in(const std::string& email, const std::string& password) {
    const auto res = call("POST", "/api/auth/login", {{"email", email}, {"password", password}});
    EXPECT_EQ(res.status, 200u) << res.body;
    return token_of(res);
  }
  // Whether `key`'s integration_health row comes to meet `condition` (SQL over its columns): the
  // clients' call outcomes are written in the background, after the calls answer.
  bool health_shows(const std::string& key, const std::string& condition) {
    return core::testing::eventually(
        [&] { return sql("SELECT (" + condition + ") FROM integration_health WHERE key = '" + key + "'") == "t"; });
  }
  // How many times the service has taken a database connection: a refused request takes none.
  std::uint64_t database_work() { return svc->service().db().stats().acquires; }
};

}  // namespace ops_console::testing
