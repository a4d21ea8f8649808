#pragma once
// What every service binary shares: configuration, migrations, the HTTP server with the core
// middleware, /healthz and /readyz, the database pool, signals and graceful shutdown, and the
// command line (`serve` (default), `migrate`, `routes`, `openapi`, `--help`).
//
// A service main reads:
//
//   int main(int argc, char** argv) {
//     return core::app::main(argc, argv, {
//         .name = "mail-triage", .summary = "...", .default_port = 8080,
//         .default_database = "mail_triage", .migrations = embedded_migrations(),
//         .configure = [](core::config::Reader& env) -> core::app::Setup {
//           auto settings = read_settings(env);
//           return [settings](core::app::Context& ctx) { install_routes(ctx, settings); };
//         }});
//   }
#include "core/app/readiness.hpp"
#include "core/async/clock.hpp"
#include "core/config/config.hpp"
#include "core/db/migrate.hpp"
#include "core/http/router.hpp"
#include "core/http/server.hpp"
#include "core/metrics/metrics.hpp"
#include "core/metrics/requests.hpp"
#include "core/openapi/document.hpp"

#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <span>
#include <thread>
#include <vector>

namespace core::app {

// What a service's setup step gets to build its routes with.
struct Context {
  boost::asio::any_io_executor executor;
  db::Pool& db;
  http::Router& router;
  http::Pipeline& pipeline;  // service middleware, run after request id, access log and problems
  // Work the service runs besides requests (a schedule, a listener) registers how to end it here:
  // on shutdown the hooks run after the server has stopped and before the pool closes, so that
  // nothing keeps the I/O threads waiting.
  std::vector<std::function<void()>>& stop_hooks;
  // The database the pool connects to, for work that needs a connection of its own (LISTEN).
  std::string_view conninfo;
  // What the service's schedules wait on (core/async/schedule.hpp): the steady clock, or the
  // hand-moved one a test gave the Service.
  std::shared_ptr<async::Clock> clock;
  // The service's metrics (docs/metrics.md), scraped on METRICS_ADDRESS; what is the process's
  // rather than the service's (job runs, upstream calls) goes to metrics::process_registry().
  metrics::Registry& metrics;
  // Run before each scrape, in order, each bounded in time by itself (a figure read from the
  // database must not make the scrape hang when the database does).
  std::vector<std::function<boost::asio::awaitable<void>()>>& before_scrape;
};

using Setup = std::function<void(Context&)>;

// A command of the service's binary besides serve and migrate (`ops-console create-user ...`).
struct Command {
  std::string name;
  std::string usage;    // the arguments, for --help
  std::string summary;  // one line, for --help
  // Runs with the arguments after the name and the database URL; returns the exit code.
  std::function<int(const std::vector<std::string>& args, const std::string& conninfo)> run;
};

struct ServiceDefinition {
  std::string name;     // binary name, log "service" field, migration lock name
  std::string summary;  // one line for --help
  std::uint16_t default_port = 8080;
  std::string default_database;  // database name in the default DATABASE_URL
  std::span<const db::Migration> migrations;
  // Reads the service's own variables (also run in describe mode for --help) and returns the
  // step that installs its routes once the pool exists.
  std::function<Setup(config::Reader&)> configure;
  // Its API, for the OpenAPI document (`<binary> openapi`, GET /openapi.json, the tests'
  // conformance check): the title defaults to the name, the summary to the one above.
  openapi::Description api;
  std::vector<Command> commands;
  // Where the metrics listener binds by default (METRICS_ADDRESS); empty: off unless configured.
  std::string default_metrics_address;
  // DB_PIPELINES' default: connections that concurrent single statements share in pipeline mode
  // (0: one each). Chosen per service from its benchmarks (docs/architecture.md).
  std::int64_t default_db_pipelines = 0;
};

// The service's OpenAPI document, once its routes are installed.
nlohmann::json api_document(const ServiceDefinition& def, const http::Router& router);
// GET /openapi.json: the document, built on the first request (every route is installed by then)
// and kept; the service puts it behind its own authentication.
http::Handler api_document_handler(const ServiceDefinition& def, const http::Router& router);

// The variables every service reads.
struct CommonSettings {
  http::ServerOptions server;
  db::PoolOptions db;
  std::size_t threads = 1;
  bool access_log = true;
  bool migrate_on_start = true;
  std::chrono::seconds startup_db_wait{30};
  std::string log_level = "info";
  // METRICS_ADDRESS: the metrics listener's address, or none (off).
  std::optional<config::Reader::HostPort> metrics;
};
CommonSettings read_common(config::Reader& env, const ServiceDefinition& def);

// How often a service gives the free pages of its allocator's arenas back to the system.
inline constexpr std::chrono::seconds kMemoryTrimInterval{60};

// One running instance. Tests create it with an explicit environment and PORT=0.
class Service {
 public:
  // Throws config::ConfigError listing every invalid variable. `clock` is what the service's
  // schedules wait on (Context::clock): a test may give a core::testing::ManualClock.
  Service(const ServiceDefinition& def, config::Environment env,
          std::shared_ptr<async::Clock> clock = async::Clock::steady());
  // The same from a reader: config::Reader::describing() gives the service as its settings'
  // defaults make it, whatever the environment holds (`<binary> routes` and `openapi`, which
  // install the routes and connect nowhere).
  Service(const ServiceDefinition& def, config::Reader reader,
          std::shared_ptr<async::Clock> clock = async::Clock::steady());
  ~Service();

  // Applies migrations (unless MIGRATE_ON_START=false), binds, and starts the I/O threads.
  // Returns the bound port. Throws db::MigrationError, db::Unavailable, std::system_error.
  std::uint16_t start();
  // Creates the pool (it connects on demand, so not yet) and installs the routes and middleware,
  // without migrating or serving: start() does this first; `<binary> routes` only this. Once.
  void install();
  // Graceful stop (see http::Server::stop), then the pool closes; blocks until done.
  void stop();
  // Blocks until SIGINT/SIGTERM (when install_signal_handlers() was called) or stop().
  void wait();
  void install_signal_handlers();

  std::uint16_t port() const;
  // The metrics listener's port; 0 when it is off.
  std::uint16_t metrics_port() const;
  db::Pool& db();
  const Readiness& readiness() const { return *readiness_; }
  boost::asio::any_io_executor executor();
  const CommonSettings& settings() const { return common_; }
  const http::Router& router() const { return router_; }

 private:
  boost::asio::awaitable<void> shutdown();
  boost::asio::awaitable<http::Response> readyz();
  boost::asio::awaitable<std::optional<std::string>> readiness_check();
  boost::asio::awaitable<http::Response> scrape(http::Request& req);
  void register_metrics();
  void start_memory_trim();

  const ServiceDefinition& def_;
  CommonSettings common_;
  Setup setup_;
  std::shared_ptr<async::Clock> clock_;
  boost::asio::io_context io_;
  std::unique_ptr<db::Pool> pool_;
  std::unique_ptr<Readiness> readiness_;  // GET /readyz within its deadline
  http::Router router_;
  http::Pipeline pipeline_;
  std::vector<std::function<void()>> stop_hooks_;
  std::unique_ptr<http::Server> server_;
  metrics::Registry metrics_;
  std::vector<std::function<boost::asio::awaitable<void>()>> before_scrape_;
  std::unique_ptr<metrics::RequestMetrics> requests_;
  std::unique_ptr<http::Server> metrics_server_;
  std::vector<std::thread> threads_;
  std::unique_ptr<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::atomic<bool> stopping_{false};
};

// The command line: returns the process exit code.
int main(int argc, char** argv, const ServiceDefinition& def);

}  // namespace core::app
