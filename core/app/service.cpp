#include "core/app/service.hpp"

#include "core/async/schedule.hpp"
#include "core/db/connection.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "core/log/log.hpp"
#include "core/metrics/process.hpp"
#include "core/util/secrets.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <malloc.h>

#include <cstdlib>
#include <iostream>
#include <mutex>

namespace core::app {

namespace asio = boost::asio;
using asio::awaitable;
using namespace std::chrono_literals;

CommonSettings read_common(config::Reader& env, const ServiceDefinition& def) {
  CommonSettings s;
  const auto hw = std::max(1u, std::thread::hardware_concurrency());
  s.server.bind_address = env.string("BIND_ADDRESS", "127.0.0.1", "address to listen on");
  s.server.port = static_cast<std::uint16_t>(
      env.integer("PORT", def.default_port, "TCP port to listen on (0 picks a free one)", {0, 65535}));
  s.db.conninfo = env.string("DATABASE_URL", "postgresql://127.0.0.1:5434/" + def.default_database,
                             "PostgreSQL connection URL of the service's own database (its password is "
                             "masked in every log line, like a secret)");
  // The password in it is a configured secret (issue 31, part 4), as is libpq's PGPASSWORD.
  for (const auto& password : db::conninfo_passwords(s.db.conninfo))
    core::secrets::remember(password, core::secrets::Kind::configured);
  if (const char* password = std::getenv("PGPASSWORD"))
    core::secrets::remember(password, core::secrets::Kind::configured);
  s.threads = static_cast<std::size_t>(env.integer("HTTP_THREADS", hw, "I/O threads", {1, 256}));
  s.server.header_limit = static_cast<std::size_t>(
      env.integer("HTTP_MAX_HEADER_BYTES", 16 * 1024, "largest request header accepted (else 431)", {1024, 1 << 20}));
  s.server.body_limit = static_cast<std::size_t>(
      env.integer("HTTP_MAX_BODY_BYTES", 1 << 20, "largest request body accepted (else 413)", {0, 1LL << 30}));
  s.server.max_connections = static_cast<std::size_t>(env.integer(
      "HTTP_MAX_CONNECTIONS", 4096,
      "connections served at once; past it one without a request in progress is closed, else 503", {1, 1 << 20}));
  s.server.idle_timeout = std::chrono::seconds(env.integer(
      "HTTP_IDLE_TIMEOUT_SECONDS", 60, "how long a connection may wait for its next request's first byte", {1, 3600}));
  s.server.header_timeout = std::chrono::seconds(env.integer(
      "HTTP_HEADER_TIMEOUT_SECONDS", 10, "time allowed to receive a request header, from its first byte", {1, 3600}));
  s.server.read_timeout = std::chrono::seconds(
      env.integer("HTTP_READ_TIMEOUT_SECONDS", 30, "time allowed to receive a request body", {1, 3600}));
  s.server.write_timeout = s.server.read_timeout;
  s.server.shutdown_timeout = std::chrono::seconds(env.integer(
      "SHUTDOWN_TIMEOUT_SECONDS", 20, "on SIGTERM, how long in-flight requests may take to finish", {0, 3600}));
  s.db.max_size = static_cast<std::size_t>(env.integer("DB_POOL_SIZE", 16, "maximum database connections", {1, 1000}));
  s.db.idle_timeout = std::chrono::seconds(
      env.integer("DB_IDLE_SECONDS", 60, "close a database connection unused this long; 0: never", {0, 86'400}));
  // Each service's default comes from its benchmarks (docs/architecture.md, bench/RESULTS.md).
  s.db.pipelines = static_cast<std::size_t>(env.integer(
      "DB_PIPELINES", def.default_db_pipelines,
      "the most connections that concurrent single statements share in pipeline mode (0: one each)", {0, 1000}));
  s.db.connect_timeout = std::chrono::milliseconds(
      env.integer("DB_CONNECT_TIMEOUT_MS", 5000, "timeout for opening a database connection", {100, 600'000}));
  s.db.acquire_timeout = std::chrono::milliseconds(env.integer(
      "DB_ACQUIRE_TIMEOUT_MS", 5000, "how long a request waits for a free pooled connection", {1, 600'000}));
  s.db.query_timeout = std::chrono::milliseconds(env.integer(
      "DB_QUERY_TIMEOUT_MS", 30000, "statement timeout; the statement is cancelled after it", {1, 3'600'000}));
  s.server.request_bounds.database = std::chrono::milliseconds(
      env.integer("DB_REQUEST_TIMEOUT_MS", 3000,
                  "how long a request waits for one database statement or connection before its 503 (a cancelled "
                  "statement gets up to 1 s more to end); background work keeps DB_QUERY_TIMEOUT_MS; 0: no bound",
                  {0, 3'600'000}));
  s.startup_db_wait = std::chrono::seconds(env.integer(
      "DB_STARTUP_WAIT_SECONDS", 30, "at start, how long to wait for the database to accept connections", {0, 3600}));
  s.migrate_on_start = env.boolean("MIGRATE_ON_START", true, "apply pending migrations when serve starts");
  s.access_log = env.boolean("ACCESS_LOG", true, "write one log line per request");
  s.log_level = env.one_of("LOG_LEVEL", "info", {"debug", "info", "warn", "error"}, "log threshold");
  s.metrics = env.host_port("METRICS_ADDRESS", def.default_metrics_address,
                            "where Prometheus metrics are served (GET /metrics; never on the public port), an IP "
                            "address and a port; set it empty to turn metrics off");
  return s;
}

Service::Service(const ServiceDefinition& def, config::Environment env, std::shared_ptr<async::Clock> clock)
    : Service(def, config::Reader(std::move(env)), std::move(clock)) {}

Service::Service(const ServiceDefinition& def, config::Reader reader, std::shared_ptr<async::Clock> clock)
    : def_(def), clock_(std::move(clock)) {
  common_ = read_common(reader, def);
  setup_ = def.configure ? def.configure(reader) : Setup{};
  reader.finish();
  // Described, the service only lists its routes: what its settings' defaults would warn of at
  // start (an unset webhook secret, say) is no news there.
  log::init(def.name, reader.is_describing() ? log::Level::error
                                             : log::parse_level(common_.log_level).value_or(log::Level::info));
}

Service::~Service() {
  if (!threads_.empty()) stop();
}

namespace {

// Waits for the database at start-up (a container or a cluster restarting alongside us).
void apply_with_retry(const ServiceDefinition& def, const CommonSettings& s) {
  const auto deadline = std::chrono::steady_clock::now() + s.startup_db_wait;
  for (;;) {
    try {
      db::apply_migrations(s.db.conninfo, def.migrations, def.name + " migrations");
      return;
    } catch (const db::Unavailable& e) {
      if (std::chrono::steady_clock::now() >= deadline) throw;
      log::warn("database not reachable yet; retrying", {{"error", e.what()}});
      std::this_thread::sleep_for(1s);
    }
  }
}

// GET /readyz answers within this, a database that hangs included (core/app/readiness.hpp).
constexpr std::chrono::milliseconds kReadinessDeadline{2000};

}  // namespace

void Service::install() {
  pool_ = std::make_unique<db::Pool>(io_.get_executor(), common_.db);
  readiness_ = std::make_unique<Readiness>(
      io_.get_executor(), [this] { return readiness_check(); }, kReadinessDeadline);
  router_.add(
      http::Verb::get, "/healthz",
      [](http::Request&) -> awaitable<http::Response> {
        co_return http::Response::json({{"status", "ok"}});
      },
      "public");
  router_.add(
      http::Verb::get, "/readyz", [this](http::Request&) { return readyz(); }, "public");

  pipeline_.add(http::request_id());
  if (common_.access_log) pipeline_.add(http::access_log());
  pipeline_.add(http::problems());
  register_metrics();
  Context ctx{io_.get_executor(),  *pool_, router_,  pipeline_,     stop_hooks_,
              common_.db.conninfo, clock_, metrics_, before_scrape_};
  if (setup_) setup_(ctx);
}

void Service::register_metrics() {
  static std::once_flag process_figures;
  std::call_once(process_figures, [] {
    metrics::register_process_metrics(metrics::process_registry());
    // Named in every scrape from the start, configured or not (docs/metrics.md).
    http::declare_upstream_metrics(metrics::process_registry());
    async::declare_job_metrics(metrics::process_registry());
  });
  metrics::register_build_info(metrics_, def_.name);
  using metrics::Samples;
  using metrics::Type;
  db::Pool& pool = *pool_;
  metrics_.callback("db_pool_max_connections", "The most connections the database pool opens (DB_POOL_SIZE)",
                    Type::gauge, [&pool](Samples& out) { out.add({}, static_cast<double>(pool.max_size())); });
  metrics_.callback("db_pool_open_connections", "Database connections open, idle or in use", Type::gauge,
                    [&pool](Samples& out) { out.add({}, static_cast<double>(pool.stats().open)); });
  metrics_.callback("db_pool_in_use_connections", "Database connections taken by a statement or transaction",
                    Type::gauge, [&pool](Samples& out) {
                      const auto s = pool.stats();
                      out.add({}, static_cast<double>(s.open - std::min(s.open, s.idle)));
                    });
  metrics_.callback("db_pool_waiting", "Callers waiting for a free database connection", Type::gauge,
                    [&pool](Samples& out) { out.add({}, static_cast<double>(pool.stats().waiting)); });
  metrics_.callback("db_pool_acquire_duration_seconds", "Time taken to get a database connection from the pool",
                    Type::histogram, [&pool](Samples& out) { out.add({}, pool.acquire_time()); });
  metrics_.callback("db_pool_acquire_timeouts_total",
                    "Callers that got no database connection within DB_ACQUIRE_TIMEOUT_MS", Type::counter,
                    [&pool](Samples& out) { out.add({}, static_cast<double>(pool.stats().acquire_timeouts)); });
  metrics_.callback("db_statement_errors_total", "Statements that failed: the database's error, or the connection lost",
                    Type::counter,
                    [&pool](Samples& out) { out.add({}, static_cast<double>(pool.stats().statement_errors)); });
  // The public port's connections (server_ is made before the threads that scrape start).
  metrics_.callback("http_open_connections", "Connections open on the public port", Type::gauge, [this](Samples& out) {
    out.add({}, server_ ? static_cast<double>(server_->open_connections()) : 0.0);
  });
  metrics_.callback(
      "http_connections_refused_total",
      "Connections answered 503 at HTTP_MAX_CONNECTIONS, every open one busy with a request", Type::counter,
      [this](Samples& out) { out.add({}, server_ ? static_cast<double>(server_->refused_connections()) : 0.0); });
  metrics_.callback(
      "http_connections_closed_for_room_total",
      "Connections without a request in progress closed at HTTP_MAX_CONNECTIONS to admit a new one", Type::counter,
      [this](Samples& out) { out.add({}, server_ ? static_cast<double>(server_->evicted_connections()) : 0.0); });
  metrics_.callback("db_statement_timeouts_total", "Statements cancelled at DB_QUERY_TIMEOUT_MS", Type::counter,
                    [&pool](Samples& out) { out.add({}, static_cast<double>(pool.stats().statement_timeouts)); });
}

awaitable<http::Response> Service::scrape(http::Request& req) {
  // The listener's only route: anything else is a 404 (its pipeline is empty, so nothing throws).
  if (req.method != http::Verb::get || req.path != "/metrics")
    co_return http::Response::text("not found\n", http::Status::not_found);
  for (auto& refresh : before_scrape_) {
    try {
      co_await refresh();
    } catch (const std::exception& e) {
      log::warn("a metrics refresh failed", {{"error", e.what()}});
    }
  }
  co_return http::Response::text(metrics_.expose() + metrics::process_registry().expose(), http::Status::ok,
                                 metrics::kContentType);
}

std::uint16_t Service::start() {
  if (common_.migrate_on_start) apply_with_retry(def_, common_);
  install();

  // Each request is counted under the template of the route that took it (core/metrics/requests.hpp).
  std::vector<std::string> templates;
  for (const auto& r : router_.routes()) templates.push_back(r.path);
  requests_ = std::make_unique<metrics::RequestMetrics>(std::move(templates));
  requests_->register_in(metrics_);

  if (common_.metrics) {
    http::ServerOptions options;
    options.bind_address = common_.metrics->host;
    options.port = common_.metrics->port;
    options.body_limit = 0;
    options.shutdown_timeout = std::chrono::seconds(2);
    metrics_server_ = std::make_unique<http::Server>(io_.get_executor(), options, http::Pipeline{},
                                                     [this](http::Request& req) { return scrape(req); });
    try {
      metrics_server_->start();
    } catch (const std::exception& e) {  // boost::system::system_error: in use, not an address of this host
      throw std::runtime_error("METRICS_ADDRESS " + common_.metrics->host + ":" +
                               std::to_string(common_.metrics->port) + ": cannot listen there: " + e.what());
    }
  }

  auto server_options = common_.server;
  server_options.body_gates = &router_;  // routes that admit their body themselves (Router::gate_body)
  // A request answered before routing (a middleware's 401) is looked up again: only those pay twice.
  server_options.observe = [this, requests = requests_.get()](const http::Request& req, const http::Response& res) {
    const int route = req.route >= 0 ? req.route : router_.route_of(req);
    requests->observe(route, req.method, static_cast<unsigned>(res.status),
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - req.received_at).count());
  };
  server_ = std::make_unique<http::Server>(io_.get_executor(), server_options, pipeline_,
                                           [this](http::Request& req) { return router_(req); });
  const auto port = server_->start();
  start_memory_trim();
  work_ = std::make_unique<decltype(work_)::element_type>(io_.get_executor());
  for (std::size_t i = 0; i < common_.threads; ++i) threads_.emplace_back([this] { io_.run(); });
  log::info("listening", {{"address", common_.server.bind_address},
                          {"port", port},
                          {"threads", common_.threads},
                          {"metrics_port", metrics_port()}});
  return port;
}

// glibc keeps memory a thread freed in that thread's arena. malloc_trim(0) gives every arena's
// free pages back to the system, such as those a burst of outbound calls left behind; it takes
// each arena's lock in turn for well under a millisecond. Alone it did not hold mail-triage's
// memory in the soak (the arenas' pages were mostly in use by the HTTP client's threads: what
// held it is core/async/blocking_pool.hpp); each trim gave back 0.2-0.4 MiB (bench/RESULTS.md).
void Service::start_memory_trim() {
  auto trim = async::Schedule::start(
      io_.get_executor(), kMemoryTrimInterval,
      []() -> awaitable<void> {
        (void)::malloc_trim(0);
        co_return;
      },
      "memory trim", clock_);
  stop_hooks_.push_back([trim] { trim->stop(); });
}

awaitable<http::Response> Service::readyz() {
  if (auto why_not = co_await readiness_->ask()) throw http::Problem::unavailable(*why_not);
  co_return http::Response::json({{"status", "ready"}});
}

awaitable<std::optional<std::string>> Service::readiness_check() {
  try {
    if (!co_await db::migrations_current(*pool_, def_.migrations)) co_return "database migrations are not applied";
  } catch (const db::Unavailable&) {
    co_return "the database is unreachable";
  } catch (const db::Timeout&) {
    co_return "the database did not answer in time";
  }
  co_return std::nullopt;
}

awaitable<void> Service::shutdown() {
  log::info("shutting down");
  co_await server_->stop();
  if (metrics_server_) co_await metrics_server_->stop();
  for (auto& hook : stop_hooks_) hook();
  pool_->close();
  work_.reset();
  log::info("stopped");
}

void Service::stop() {
  if (threads_.empty()) return;
  if (!stopping_.exchange(true)) {
    asio::co_spawn(io_, shutdown(), asio::use_future).get();
  }
  wait();
}

void Service::wait() {
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void Service::install_signal_handlers() {
  auto signals = std::make_shared<asio::signal_set>(io_, SIGINT, SIGTERM);
  signals->async_wait([this, signals](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    log::info("signal received", {{"signal", signo}});
    if (!stopping_.exchange(true)) asio::co_spawn(io_, shutdown(), asio::detached);
  });
}

std::uint16_t Service::port() const { return server_ ? server_->port() : 0; }
std::uint16_t Service::metrics_port() const { return metrics_server_ ? metrics_server_->port() : 0; }
db::Pool& Service::db() { return *pool_; }
asio::any_io_executor Service::executor() { return io_.get_executor(); }

nlohmann::json api_document(const ServiceDefinition& def, const http::Router& router) {
  auto description = def.api;
  if (description.title.empty()) description.title = def.name;
  if (description.summary.empty()) description.summary = def.summary;
  return openapi::document(router, description);
}

http::Handler api_document_handler(const ServiceDefinition& def, const http::Router& router) {
  struct Built {
    std::once_flag once;
    std::string text;
  };
  auto built = std::make_shared<Built>();
  return [&def, &router, built](http::Request&) -> asio::awaitable<http::Response> {
    std::call_once(built->once, [&] { built->text = api_document(def, router).dump(); });
    co_return http::Response::json_text(built->text);
  };
}

namespace {

void print_help(const ServiceDefinition& def) {
  auto reader = config::Reader::describing();
  read_common(reader, def);
  if (def.configure) def.configure(reader);
  std::string names = "serve|migrate|routes|openapi";
  for (const auto& c : def.commands) names += "|" + c.name;
  std::cout << def.name << " — " << def.summary << "\n\n"
            << "Usage: " << def.name << " [" << names << "|--help]\n"
            << "  serve     apply pending migrations, then serve HTTP (the default)\n"
            << "  migrate   apply pending migrations and exit\n"
            << "  routes    list every route: method, path and the access it requires (no setting needed)\n"
            << "  openapi   print the OpenAPI 3.1 document of every route (JSON), without a database or setting\n";
  for (const auto& c : def.commands) std::cout << "  " << c.name << " " << c.usage << "\n      " << c.summary << "\n";
  std::cout << "  --help    this text\n\n"
            << "Every HTTP service answers GET /healthz (process up) and GET /readyz (database\n"
            << "reachable and migrations applied, else 503).\n\n"
            << "Environment (also read from ./.env or $ENV_FILE; the environment wins):\n"
            << config::format_help(reader.described());
}

}  // namespace

int main(int argc, char** argv, const ServiceDefinition& def) {
  const std::string command = argc > 1 ? argv[1] : "serve";
  if (command == "--help" || command == "-h" || command == "help") {
    print_help(def);
    return 0;
  }
  for (const auto& c : def.commands) {
    if (c.name != command) continue;
    log::init(def.name);
    try {
      auto env = config::load_environment();
      config::Reader reader(env);
      const auto common = read_common(reader, def);
      reader.finish();
      return c.run(std::vector<std::string>(argv + 2, argv + argc), common.db.conninfo);
    } catch (const config::ConfigError& e) {
      std::cerr << def.name << ": " << e.what() << "\n";
      return 2;
    }
  }
  if (command != "serve" && command != "migrate" && command != "routes" && command != "openapi") {
    std::cerr << def.name << ": unknown command '" << command << "'; see " << def.name << " --help\n";
    return 2;
  }
  if (argc > 2) {
    std::cerr << def.name << ": '" << command << "' takes no arguments, got '" << argv[2] << "'; see " << def.name
              << " --help\n";
    return 2;
  }
  log::init(def.name);
  try {
    if (command == "routes" || command == "openapi") {
      // Every route, from the service as its defaults make it: no setting is needed (API keys
      // and such), and what the environment (or a .env file) holds changes nothing, so it is not
      // read. Nothing is connected.
      Service service(def, config::Reader::describing());
      service.install();
      if (command == "openapi") {
        std::cout << api_document(def, service.router()).dump(2) << "\n";
        return 0;
      }
      // One per line, with the access it declares.
      for (const auto& r : service.router().routes())
        std::cout << std::string(http::bhttp::to_string(r.method)) << " " << r.path << " "
                  << (r.access.empty() ? "-" : r.access) << "\n";
      return 0;
    }
    auto env = config::load_environment();
    if (command == "migrate") {
      // Only what migrating needs: a deploy step (or scripts/demo) runs it without the
      // service's own settings such as API keys.
      config::Reader reader(env);
      const auto common = read_common(reader, def);
      reader.finish();
      const auto applied = db::apply_migrations(common.db.conninfo, def.migrations, def.name + " migrations");
      log::info("migrations complete", {{"applied", applied}, {"known", def.migrations.size()}});
      return 0;
    }
    Service service(def, std::move(env));
    service.install_signal_handlers();
    service.start();
    service.wait();
    return 0;
  } catch (const config::ConfigError& e) {
    std::cerr << def.name << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    log::error("fatal", {{"error", e.what()}});
    std::cerr << def.name << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace core::app
