#include "core/testing/service_contract.hpp"

#include "core/testing/manual_clock.hpp"
#include "core/util/strings.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace core::testing {
namespace {

std::map<std::string, std::string> child_env(const ServiceUnderTest& s, const std::string& database_url) {
  std::map<std::string, std::string> env{{"DATABASE_URL", database_url},
                                         {"PORT", "0"},
                                         {"LOG_LEVEL", "info"},
                                         {"DB_STARTUP_WAIT_SECONDS", "0"},
                                         {"METRICS_ADDRESS", "127.0.0.1:0"}};
  for (const auto& [k, v] : s.required_env) env[k] = v;
  return env;
}

// Runs a shell command; returns its standard output and sets `status` to its exit status.
std::string command_output(const std::string& cmd, int& status) {
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed: " + cmd);
  std::string text;
  char buf[4096];
  while (auto n = fread(buf, 1, sizeof buf, pipe)) text.append(buf, n);
  status = pclose(pipe);
  return text;
}

std::uint16_t listening_port(Process& p) {
  const auto line = p.wait_for_log("listening");
  if (!line) throw std::runtime_error("service did not start: " + p.stderr_text());
  return (*line)["port"].get<std::uint16_t>();
}

}  // namespace

TEST_P(ServiceContract, HealthAndReadiness) {
  TestDatabase database(GetParam().definition->migrations);
  RunningService svc(*GetParam().definition, database.url(), GetParam().required_env);
  const auto health = svc.get("/healthz");
  EXPECT_EQ(health.status, 200u);
  EXPECT_EQ(health.json()["status"], "ok");
  const auto ready = svc.get("/readyz");
  EXPECT_EQ(ready.status, 200u);
  EXPECT_EQ(ready.json()["status"], "ready");
  EXPECT_FALSE(ready.header("x-request-id").empty());
}

TEST_P(ServiceContract, NotReadyUntilMigrated) {
  TestDatabase empty;  // no migrations applied
  auto env = GetParam().required_env;
  env["MIGRATE_ON_START"] = "false";
  RunningService svc(*GetParam().definition, empty.url(), env);
  EXPECT_EQ(svc.get("/healthz").status, 200u);
  const auto ready = svc.get("/readyz");
  EXPECT_EQ(ready.status, 503u);
  EXPECT_EQ(ready.header("content-type"), "application/problem+json");
  EXPECT_EQ(ready.json()["detail"], "database migrations are not applied");
}

TEST_P(ServiceContract, ReadinessFollowsADatabaseRestart) {
  TempCluster cluster;
  sql(cluster.url(), "CREATE DATABASE svc");
  RunningService svc(*GetParam().definition, cluster.url("svc"), GetParam().required_env);
  HttpClient client(svc.port());  // one keep-alive connection across the outage
  EXPECT_EQ(client.request("GET", "/readyz").status, 200u);

  cluster.stop("fast");
  const auto down = client.request("GET", "/readyz");
  EXPECT_EQ(down.status, 503u);
  EXPECT_EQ(down.json()["detail"], "the database is unreachable");
  EXPECT_EQ(client.request("GET", "/healthz").status, 200u);  // the process itself is fine

  cluster.start();
  EXPECT_TRUE(eventually([&] { return client.request("GET", "/readyz").status == 200u; }));
}

// A database that hangs rather than refuses (its processes stopped, issue 37): /readyz still
// answers 503 within its 2 s deadline, again and again, with one check in flight rather than one
// per probe; once the database goes on, ready again.
TEST_P(ServiceContract, ReadinessAnswersWithinItsDeadlineWhenTheDatabaseHangs) {
  TempCluster cluster;
  sql(cluster.url(), "CREATE DATABASE svc");
  RunningService svc(*GetParam().definition, cluster.url("svc"), GetParam().required_env);
  HttpClient client(svc.port());
  EXPECT_EQ(client.request("GET", "/readyz").status, 200u);

  const auto checks_before = svc.service().readiness().checks_started();
  cluster.freeze();
  for (int probe = 0; probe < 3; ++probe) {
    const auto asked = std::chrono::steady_clock::now();
    const auto hung = client.request("GET", "/readyz");
    const auto took = std::chrono::steady_clock::now() - asked;
    EXPECT_EQ(hung.status, 503u);
    EXPECT_EQ(hung.json()["detail"], "the database did not answer within 2000 ms");
    // The deadline is 2 s; 5 leaves a loaded machine its margin, and is far from the 35 s a probe
    // waited before (the pool's statement timeout and cancel grace).
    EXPECT_LT(took, std::chrono::seconds(5));
  }
  // Counted as checks, not as the pool's busy connections: the service's own background work (a
  // schedule woken at start, such as ops-console's trends days) may also hang on the frozen
  // database, and on a loaded machine it may not yet have run when the freeze comes.
  EXPECT_EQ(svc.service().readiness().checks_started() - checks_before, 1u)
      << "the probes share one check, which holds one connection, rather than one check each";
  EXPECT_EQ(client.request("GET", "/healthz").status, 200u);

  cluster.thaw();
  EXPECT_TRUE(eventually([&] { return client.request("GET", "/readyz").status == 200u; }));
}

// The same hang seen by an interactive request (issue 37): it waits DB_REQUEST_TIMEOUT_MS for its
// statement or its connection, plus at most 1 s for a cancelled statement to end, then answers
// 503; background work keeps the pool's 30 s. Once the database goes on, the same request is
// answered as before and no connection is left busy.
TEST_P(ServiceContract, AnInteractiveRequestAnswers503WithinItsBoundWhenTheDatabaseHangs) {
  const auto& s = GetParam();
  ASSERT_FALSE(s.database_read_target.empty());
  TempCluster cluster;
  sql(cluster.url(), "CREATE DATABASE svc");
  auto env = s.required_env;
  env["DB_REQUEST_TIMEOUT_MS"] = "1000";
  RunningService svc(*s.definition, cluster.url("svc"), env);
  HttpClient client(svc.port());
  const auto read = [&] { return client.request("GET", s.database_read_target, "", s.database_read_headers); };
  EXPECT_EQ(read().status, s.database_read_status);

  cluster.freeze();
  for (int attempt = 0; attempt < 3; ++attempt) {  // a pooled connection first, then new ones
    const auto asked = std::chrono::steady_clock::now();
    const auto hung = read();
    const auto took = std::chrono::steady_clock::now() - asked;
    EXPECT_EQ(hung.status, 503u) << hung.body;
    EXPECT_EQ(hung.header("content-type"), "application/problem+json");
    EXPECT_EQ(hung.json()["detail"], "the database did not answer in time; try again shortly");
    // 1 s bound + 1 s grace + the sweeper's 0.1 s; 4 leaves a loaded machine its margin, and is
    // far from the 35 s a request waited before.
    EXPECT_LT(took, std::chrono::seconds(4));
  }
  cluster.thaw();
  EXPECT_TRUE(eventually([&] { return read().status == s.database_read_status; }));
  EXPECT_TRUE(eventually([&] {
    const auto stats = svc.service().db().stats();
    return stats.open == stats.idle;
  })) << "no connection stays busy after the hang";
}

TEST_P(ServiceContract, ErrorsAreProblemDocuments) {
  TestDatabase database(GetParam().definition->migrations);
  RunningService svc(*GetParam().definition, database.url(), GetParam().required_env);
  const auto missing = svc.get("/no/such/route");
  EXPECT_EQ(missing.status, 404u);
  EXPECT_EQ(missing.header("content-type"), "application/problem+json");
  const auto wrong = http(svc.port(), "DELETE", "/healthz");
  EXPECT_EQ(wrong.status, 405u);
  EXPECT_EQ(wrong.header("allow"), "GET, HEAD");
  EXPECT_EQ(wrong.json()["status"], 405);
}

// Metrics are served on their own listener only (docs/metrics.md): requests counted under their
// route template and status class, never a raw path; the scrape passes `promtool check metrics`.
TEST_P(ServiceContract, MetricsOnTheirOwnListener) {
  TestDatabase database(GetParam().definition->migrations);
  RunningService svc(*GetParam().definition, database.url(), GetParam().required_env);
  const auto metrics_port = svc.service().metrics_port();
  ASSERT_NE(metrics_port, 0);
  ASSERT_NE(metrics_port, svc.port());

  EXPECT_EQ(svc.get("/healthz").status, 200u);
  EXPECT_EQ(svc.get("/healthz").status, 200u);
  EXPECT_EQ(svc.get("/no-such-page/zqx").status, 404u);
  EXPECT_EQ(svc.get(GetParam().unauthorized_target).status, 401u);
  EXPECT_EQ(svc.get("/metrics").status, 404u);  // never on the public port

  const auto scrape = http(metrics_port, "GET", "/metrics");
  ASSERT_EQ(scrape.status, 200u);
  EXPECT_TRUE(scrape.header("content-type").starts_with("text/plain; version=0.0.4")) << scrape.header("content-type");
  const std::string& text = scrape.body;
  const auto has = [&text](const std::string& line) { return text.find(line) != std::string::npos; };
  EXPECT_TRUE(has("\nhttp_requests_total{method=\"GET\",route=\"/healthz\",status=\"2xx\"} 2\n")) << text;
  EXPECT_TRUE(has("\nhttp_requests_total{method=\"GET\",route=\"unmatched\",status=\"4xx\"} 2\n")) << text;
  EXPECT_TRUE(
      has("\nhttp_requests_total{method=\"GET\",route=\"" + GetParam().unauthorized_route + "\",status=\"4xx\"} 1\n"))
      << text;
  EXPECT_TRUE(has("\nhttp_request_duration_seconds_count{method=\"GET\",route=\"/healthz\"} 2\n")) << text;
  // No raw path or id is a label.
  for (const std::string raw : {"no-such-page", "zqx", GetParam().unauthorized_target.c_str()})
    EXPECT_FALSE(has(raw)) << raw << " in\n" << text;
  std::string service_prefix = GetParam().definition->name;
  std::replace(service_prefix.begin(), service_prefix.end(), '-', '_');
  for (const auto& name : std::vector<std::string>{
           "db_pool_max_connections 4\n", "db_pool_in_use_connections ", "db_pool_acquire_duration_seconds_count ",
           "db_statement_errors_total ", "db_statement_timeouts_total ", "process_resident_memory_bytes ",
           "process_cpu_seconds_total ", "process_open_fds ", "process_max_fds ", "process_start_time_seconds ",
           service_prefix + "_build_info{version=\""})
    EXPECT_TRUE(has("\n" + name)) << name << " missing from\n" << text;

  // An address that cannot be bound refuses start, naming the setting.
  auto taken = GetParam().required_env;
  taken["METRICS_ADDRESS"] = "127.0.0.1:" + std::to_string(metrics_port);
  try {
    RunningService second(*GetParam().definition, database.url(), taken);
    ADD_FAILURE() << "started on a metrics port in use";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("METRICS_ADDRESS 127.0.0.1:" + std::to_string(metrics_port) +
                                         ": cannot listen there"),
              std::string::npos)
        << e.what();
  }

  // The listener has one route.
  EXPECT_EQ(http(metrics_port, "GET", "/").status, 404u);
  EXPECT_EQ(http(metrics_port, "GET", "/metrics/x").status, 404u);
  EXPECT_EQ(http(metrics_port, "POST", "/metrics").status, 404u);
  EXPECT_EQ(http(metrics_port, "GET", "/healthz").status, 404u);

  // Debian's promtool (the prometheus package, scripts/lib.sh) finds nothing to say.
  const std::string promtool = "/usr/bin/promtool";
  ASSERT_EQ(access(promtool.c_str(), X_OK), 0) << promtool << " is missing: install Debian's prometheus package";
  const std::string file = ::testing::TempDir() + "scrape-" + std::to_string(::getpid()) + ".txt";
  {
    std::ofstream out(file);
    out << text;
  }
  int status = -1;
  const std::string said = command_output(promtool + " check metrics < " + file + " 2>&1", status);
  std::remove(file.c_str());
  EXPECT_EQ(status, 0) << said;
  EXPECT_EQ(said, "") << said;
}

// Every minute the service gives its allocator's free pages back (Service::start_memory_trim): the
// schedule comes round once a minute of its clock, and each round succeeds.
TEST_P(ServiceContract, FreedMemoryIsGivenBackEveryMinute) {
  TestDatabase database(GetParam().definition->migrations);
  auto clock = std::make_shared<ManualClock>();
  RunningService svc(*GetParam().definition, database.url(), GetParam().required_env, clock);
  const auto trims = [&] {
    const std::string text = http(svc.service().metrics_port(), "GET", "/metrics").body;
    const std::string line = "\njob_runs_total{schedule=\"memory trim\",outcome=\"ok\"} ";
    const auto at = text.find(line);
    return at == std::string::npos ? 0L : std::stol(text.substr(at + line.size()));
  };
  const long before = trims();  // the process's registry: earlier services of this process count too
  clock->advance(std::chrono::seconds(59));
  EXPECT_EQ(clock->rounds("memory trim"), 0);
  clock->advance(std::chrono::seconds(61));
  EXPECT_EQ(clock->rounds("memory trim"), 2);
  EXPECT_EQ(trims(), before + 2);
}

// The Grafana dashboard (docs/grafana/msp-services.json, docs/metrics.md) asks for what the services
// export: every panel's query, with the dashboard's variables filled in, is PromQL that promtool
// accepts (as recording rules), and every metric it selects is one this service's scrape declares,
// or carries the other service's prefix (the dashboard serves both).
TEST_P(ServiceContract, TheGrafanaDashboardAsksForMetricsThatExist) {
  TestDatabase database(GetParam().definition->migrations);
  RunningService svc(*GetParam().definition, database.url(), GetParam().required_env);
  const auto scrape = http(svc.service().metrics_port(), "GET", "/metrics");
  ASSERT_EQ(scrape.status, 200u);
  std::set<std::string> exported;  // histograms' series too: _bucket, _sum, _count
  {
    std::istringstream lines(scrape.body);
    std::string line;
    static const std::regex type_line(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$)");
    while (std::getline(lines, line)) {
      std::smatch m;
      if (!std::regex_match(line, m, type_line)) continue;
      exported.insert(m[1]);
      if (m[2] == "histogram")
        for (const char* suffix : {"_bucket", "_sum", "_count"}) exported.insert(m[1].str() + suffix);
    }
  }
  ASSERT_GE(exported.size(), 10u) << scrape.body;
  std::string own_prefix = GetParam().definition->name + "_";
  std::replace(own_prefix.begin(), own_prefix.end(), '-', '_');
  const std::string other_prefix = own_prefix == "ops_console_" ? "mail_triage_" : "ops_console_";

  std::ifstream in(project_root() + "/docs/grafana/msp-services.json");
  ASSERT_TRUE(in) << "docs/grafana/msp-services.json is missing";
  const auto dashboard = nlohmann::json::parse(in);
  std::vector<std::string> queries;
  std::function<void(const nlohmann::json&)> collect = [&](const nlohmann::json& panels) {
    for (const auto& panel : panels) {
      for (const auto& target : panel.value("targets", nlohmann::json::array()))
        if (target.contains("expr")) queries.push_back(target["expr"]);
      if (panel.contains("panels")) collect(panel["panels"]);  // a row's panels
    }
  };
  collect(dashboard.at("panels"));
  ASSERT_GE(queries.size(), 10u);

  static const std::regex selector(R"(([a-zA-Z_:][a-zA-Z0-9_:]*)\{)");
  std::string rules = "groups:\n  - name: dashboard\n    rules:\n";
  for (std::size_t i = 0; i < queries.size(); ++i) {
    std::string query = std::regex_replace(queries[i], std::regex(R"(\$__rate_interval)"), "5m");
    query = std::regex_replace(query, std::regex(R"(\$(job|instance)\b)"), ".+");
    for (auto it = std::sregex_iterator(query.begin(), query.end(), selector); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      EXPECT_TRUE(exported.contains(name) || name.starts_with(other_prefix))
          << name << " (in the dashboard's query " << queries[i] << ") is not among " << GetParam().definition->name
          << "'s metrics";
    }
    std::string quoted;  // YAML single quotes: ' is written ''
    for (char c : query) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    rules += "      - record: dashboard:query_" + std::to_string(i) + "\n        expr: '" + quoted + "'\n";
  }
  const std::string file = ::testing::TempDir() + "dashboard-rules-" + std::to_string(::getpid()) + ".yml";
  {
    std::ofstream out(file);
    out << rules;
  }
  int status = -1;
  const std::string said = command_output("/usr/bin/promtool check rules " + file + " 2>&1", status);
  std::remove(file.c_str());
  EXPECT_EQ(status, 0) << said << "\n" << rules;
}

TEST_P(ServiceContract, HelpListsCommandsAndVariables) {
  int status = -1;
  const std::string text = command_output(GetParam().binary + " --help", status);
  EXPECT_EQ(status, 0);
  for (const char* word :
       {"serve", "migrate", "routes", "openapi", "DATABASE_URL", "BIND_ADDRESS", "PORT", "HTTP_MAX_BODY_BYTES",
        "SHUTDOWN_TIMEOUT_SECONDS", "DB_POOL_SIZE", "/readyz", "METRICS_ADDRESS"})
    EXPECT_NE(text.find(word), std::string::npos) << word << " missing from --help:\n" << text;
}

namespace {

// The binary, run without any of the service's required settings (its API keys, say), with a
// database URL that points at a closed port, a port that is no number and an ENV_FILE that cannot
// be read: what a command that needs no setting and connects nowhere must still run with.
std::string unconfigured(const ServiceUnderTest& service) {
  std::string cmd = "env";
  for (const auto& [name, value] : service.required_env) cmd += " -u " + name;
  return cmd + " DATABASE_URL=postgresql://127.0.0.1:1/x PORT=eighty ENV_FILE=/nonexistent/.env " + service.binary;
}

}  // namespace

// `<binary> routes` prints every route the service registers, with its declared access: from the
// service as its defaults make it, so it needs no setting, and it connects nowhere.
TEST_P(ServiceContract, RoutesCommandListsEveryRouteWithoutADatabaseOrSettings) {
  int status = -1;
  const std::string text = command_output(unconfigured(GetParam()) + " routes", status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(text.find("GET /healthz public\n"), std::string::npos) << text;
  EXPECT_NE(text.find("GET /readyz public\n"), std::string::npos) << text;

  // The same routes as the service registers in process with its settings, one line each.
  app::Service service(*GetParam().definition, GetParam().required_env);
  service.install();
  const auto& routes = service.router().routes();
  EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), routes.size()) << text;
  for (const auto& r : routes) {
    const std::string line = std::string(http::bhttp::to_string(r.method)) + " " + r.path + " ";
    EXPECT_NE(text.find(line), std::string::npos) << line << "missing from:\n" << text;
  }
}

// `<binary> openapi` prints the service's OpenAPI document, the one the running service builds,
// and needs no setting and connects nowhere either.
TEST_P(ServiceContract, OpenApiCommandPrintsTheDocumentWithoutADatabaseOrSettings) {
  int status = -1;
  const std::string text = command_output(unconfigured(GetParam()) + " openapi 2>/dev/null", status);
  EXPECT_EQ(status, 0);
  const auto printed = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(printed.is_discarded()) << text.substr(0, 500);
  EXPECT_EQ(printed["openapi"], "3.1.0");

  app::Service service(*GetParam().definition, GetParam().required_env);
  service.install();
  EXPECT_TRUE(printed == app::api_document(*GetParam().definition, service.router()))
      << "the printed document is not the one the service builds with its settings";
}

// A command given an argument it does not take says which, rather than that the command is unknown.
TEST_P(ServiceContract, ACommandGivenAnExtraArgumentNamesIt) {
  for (const std::string command : {"serve", "migrate", "routes", "openapi"}) {
    int status = -1;
    const std::string said = command_output(unconfigured(GetParam()) + " " + command + " extra 2>&1", status);
    EXPECT_NE(status, 0) << command;
    EXPECT_NE(said.find("'" + command + "' takes no arguments, got 'extra'"), std::string::npos) << said;
  }
}

TEST_P(ServiceContract, InvalidConfigurationStopsStartup) {
  auto env = child_env(GetParam(), "postgresql://127.0.0.1:1/x");
  env["PORT"] = "eighty";
  env["HTTP_THREADS"] = "0";
  env["METRICS_ADDRESS"] = "localhost:9464";
  Process p(GetParam().binary, {}, env);
  EXPECT_EQ(p.wait_exit(), 2);
  EXPECT_NE(p.stderr_text().find("METRICS_ADDRESS: 'localhost:9464' is not an IP address and a port"),
            std::string::npos)
      << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("PORT: 'eighty' is not a whole number"), std::string::npos) << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("HTTP_THREADS: 0 is outside 1..256"), std::string::npos) << p.stderr_text();

  Process unknown(GetParam().binary, {"frobnicate"}, env);
  EXPECT_EQ(unknown.wait_exit(), 2);
}

TEST_P(ServiceContract, MigrateCommandAndEditedMigrationRefusal) {
  TestDatabase empty;
  auto env = child_env(GetParam(), empty.url());
  for (const auto& [name, value] : GetParam().required_env) env.erase(name);  // migrate needs only the database
  Process first(GetParam().binary, {"migrate"}, env);
  ASSERT_EQ(first.wait_exit(), 0) << first.stderr_text();
  EXPECT_EQ(sql(empty.url(), "SELECT count(*) FROM schema_migrations"),
            std::to_string(GetParam().definition->migrations.size()));
  env = child_env(GetParam(), empty.url());
  Process again(GetParam().binary, {"migrate"}, env);
  EXPECT_EQ(again.wait_exit(), 0);

  // As if the first migration file had been edited after it was applied.
  sql(empty.url(),
      "UPDATE schema_migrations SET checksum = 'edited' WHERE name = (SELECT min(name) FROM schema_migrations)");
  Process serve(GetParam().binary, {"serve"}, env);
  EXPECT_EQ(serve.wait_exit(), 1);
  EXPECT_NE(serve.stderr_text().find("was edited after it was applied"), std::string::npos) << serve.stderr_text();
}

namespace {

// The SQL docs/deploy.md gives an operator to create `service`'s role and database: the ```sql
// block under the line `<!-- roles of <service>: ... -->`, one statement a line.
std::vector<std::string> deploy_md_role_sql(const std::string& service) {
  std::ifstream in(project_root() + "/docs/deploy.md");
  if (!in) throw std::runtime_error("docs/deploy.md is missing");
  const std::string marker = "<!-- roles of " + service + ":";
  std::vector<std::string> lines;
  std::string line;
  bool found = false, inside = false;
  while (std::getline(in, line)) {
    if (!found) {
      found = line.starts_with(marker);
    } else if (!inside) {
      inside = line == "```sql";
      if (!inside && !line.empty()) break;  // the block must follow the marker
    } else if (line == "```") {
      break;
    } else {
      lines.push_back(line);
    }
  }
  return lines;
}

// The role's database and the role itself, dropped at the end of the test (roles are the cluster's).
struct DeployedRole {
  DeployedRole(std::string admin_url, std::string role_name)
      : admin(std::move(admin_url)), name(std::move(role_name)) {}
  DeployedRole(const DeployedRole&) = delete;
  ~DeployedRole() {
    for (const std::string& statement :
         {"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "DROP ROLE IF EXISTS " + name}) {
      try {
        sql(admin, statement);
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
  const std::string admin, name;
};

}  // namespace

// docs/deploy.md, "Database roles": the service migrates its database and serves as the role that
// page tells an operator to create (its SQL block, run here as written, under a unique name): not a
// superuser, no CREATEDB, CREATEROLE only where the service creates roles, the owner of a fresh
// database that PUBLIC may not connect to. The service's privileged work (mail-triage's /dbusers
// console) runs too; a privilege missing fails the migration, readiness, that work, or shows as a
// refusal in the service's log.
TEST_P(ServiceContract, RunsAsTheLeastPrivilegedRoleOfDeployMd) {
  const auto& def = *GetParam().definition;
  const auto block = deploy_md_role_sql(def.name);
  ASSERT_FALSE(block.empty()) << "docs/deploy.md has no SQL block under <!-- roles of " << def.name << ": -->";
  const DeployedRole role{database_url(), def.default_database + "_" + random_hex(4)};
  const std::string password = random_hex(16);
  const std::regex deploy_name("\\b" + def.default_database + "\\b");
  bool created_role = false, created_database = false;
  for (const auto& line : block) {
    if (line.empty() || line.starts_with("--")) continue;
    std::string statement = std::regex_replace(line, deploy_name, role.name);
    if (statement.starts_with("\\password ")) {  // psql asks the operator; the test sets its own
      statement = "ALTER ROLE " + statement.substr(10) + " PASSWORD '" + password + "'";
    }
    created_role = created_role || statement.starts_with("CREATE ROLE " + role.name + " ");
    created_database = created_database || statement.starts_with("CREATE DATABASE " + role.name + " ");
    sql(role.admin, statement.ends_with(';') ? statement.substr(0, statement.size() - 1) : statement);
  }
  ASSERT_TRUE(created_role && created_database) << "the block creates no role or no database of its name";
  EXPECT_EQ(sql(role.admin,
                "SELECT concat_ws(' ', rolsuper::int, rolcreatedb::int, rolcreaterole::int, "
                "rolreplication::int, rolbypassrls::int) FROM pg_roles WHERE rolname = '" +
                    role.name + "'"),
            std::string("0 0 ") + (GetParam().creates_roles ? "1" : "0") + " 0 0")
      << "superuser, createdb, createrole, replication, bypassrls";
  EXPECT_EQ(sql(role.admin, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = '" + role.name + "'"),
            role.name);

  std::string url = database_url(role.name);
  url = url.substr(0, url.find("://") + 3) + role.name + ":" + password + url.substr(url.find('@'));
  auto env = child_env(GetParam(), url);
  for (const auto& [name, value] : GetParam().required_env) env.erase(name);
  Process migrate(GetParam().binary, {"migrate"}, env);
  ASSERT_EQ(migrate.wait_exit(std::chrono::seconds(120)), 0) << migrate.stderr_text();
  // Everything the migrations made is the role's: the next release's migrations may alter it.
  EXPECT_EQ(sql(database_url(role.name),
                "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') "
                "AND pg_get_userbyid(c.relowner) <> '" +
                    role.name + "'"),
            "0");

  Process serve(GetParam().binary, {}, child_env(GetParam(), url));
  const auto port = listening_port(serve);
  const auto ready = http(port, "GET", "/readyz");
  EXPECT_EQ(ready.status, 200u) << ready.body;
  if (GetParam().privileged_work) GetParam().privileged_work(port, url);
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait_exit(), 0) << serve.stderr_text();
  static const std::regex refused(R"(permission denied|must be (owner|superuser|a member|member))");
  EXPECT_FALSE(std::regex_search(serve.stderr_text(), refused)) << serve.stderr_text();
}

TEST_P(ServiceContract, AccessLogLineLeavesOutTheQuery) {
  TestDatabase database(GetParam().definition->migrations);
  Process service(GetParam().binary, {}, child_env(GetParam(), database.url()));
  const auto port = listening_port(service);
  const auto res = http(port, "GET", "/healthz?token=hunter2", {}, {{"X-Request-Id", "trace-77"}});
  ASSERT_EQ(res.status, 200u);
  const auto line = service.wait_for_log("request");
  ASSERT_TRUE(line) << service.stderr_text();
  EXPECT_EQ((*line)["method"], "GET");
  EXPECT_EQ((*line)["path"], "/healthz");
  EXPECT_EQ((*line)["status"], 200);
  EXPECT_EQ((*line)["request_id"], "trace-77");
  EXPECT_EQ((*line)["remote"], "127.0.0.1");
  EXPECT_TRUE((*line)["duration_ms"].is_number());
  EXPECT_EQ(service.stderr_text().find("hunter2"), std::string::npos);
}

TEST_P(ServiceContract, SigtermLetsAnInFlightRequestFinish) {
  TestDatabase database(GetParam().definition->migrations);
  auto env = child_env(GetParam(), database.url());
  env["SHUTDOWN_TIMEOUT_SECONDS"] = "20";
  Process service(GetParam().binary, {}, env);
  const auto port = listening_port(service);

  // Hold a lock that /readyz's query waits on, so the request is in flight when SIGTERM arrives.
  Session blocker(database.url());
  blocker.sql("BEGIN; LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE");

  std::optional<HttpResponse> slow;
  std::thread caller([&] { slow = http(port, "GET", "/readyz"); });
  ASSERT_TRUE(eventually([&] {
    return sql(database.url(),
               "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'schema_migrations'::regclass") != "0";
  }));
  service.signal(SIGTERM);
  ASSERT_TRUE(service.wait_for_log("shutting down"));
  EXPECT_FALSE(service.wait_exit(std::chrono::milliseconds(300)));  // still finishing the request

  blocker.sql("COMMIT");
  caller.join();
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->status, 200u);
  EXPECT_EQ(service.wait_exit(), 0) << service.stderr_text();
}

}  // namespace core::testing
