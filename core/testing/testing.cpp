#include "core/testing/testing.hpp"

#include "core/db/blocking.hpp"

#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace core::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using asio::ip::tcp;

namespace {

std::string env_or(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string admin_url() {
  const char* v = std::getenv("TEST_DATABASE_URL");
  if (!v || !*v) throw std::runtime_error("TEST_DATABASE_URL is not set: run the tests through scripts/test");
  return v;
}

std::string with_database(const std::string& url, std::string_view database) {
  const auto slash = url.rfind('/');
  const auto query = url.find('?', slash);
  return url.substr(0, slash + 1) + std::string(database) + (query == std::string::npos ? "" : url.substr(query));
}

}  // namespace

std::string database_url(std::string_view database) { return with_database(admin_url(), database); }

Session::Session(const std::string& url) : conn_(std::make_unique<db::BlockingConnection>(url)) {}

Session::~Session() = default;

std::string Session::sql(const std::string& statement) {
  db::BlockingResult r{nullptr, PQclear};
  try {
    r = conn_->exec(statement);
  } catch (const std::exception& e) {  // db::Error or db::Unavailable: said with the statement
    throw std::runtime_error(statement + ": " + e.what());
  }
  if (PQntuples(r.get()) == 0 || PQnfields(r.get()) == 0) return "";
  return PQgetvalue(r.get(), 0, 0);
}

std::string sql(const std::string& url, const std::string& statement) { return Session(url).sql(statement); }

// --- TestDatabase -------------------------------------------------------------------------

namespace {

std::string template_for(std::span<const db::Migration> migrations) {
  std::string all;
  for (const auto& m : migrations) all += std::string(m.name) + core::sha256_hex(m.sql);
  const std::string name = "tpl_" + core::sha256_hex(all).substr(0, 16);

  Session admin(admin_url());
  const auto run = [&](const std::string& s) { return admin.sql(s); };
  run("SELECT pg_advisory_lock(7321001)");
  if (run("SELECT count(*) FROM pg_database WHERE datname = '" + name + "'") == "0") {
    // Built under another name and renamed when complete, so a crash leaves no half template.
    const std::string building = name + "_building";
    run("DROP DATABASE IF EXISTS " + building + " WITH (FORCE)");
    run("CREATE DATABASE " + building);
    db::apply_migrations(with_database(admin_url(), building), migrations, "test template");
    run("ALTER DATABASE " + building + " RENAME TO " + name);
  }
  run("SELECT pg_advisory_unlock(7321001)");
  return name;
}

}  // namespace

TestDatabase::TestDatabase(std::span<const db::Migration> migrations) {
  const auto tpl = template_for(migrations);
  name_ = "t_" + random_hex(8);
  // FILE_COPY copies the template's files; the default (WAL_LOG) writes every page through the
  // WAL, which cost five times the system time on this small template (docs/testing.md).
  sql(admin_url(), "CREATE DATABASE " + name_ + " TEMPLATE " + tpl + " STRATEGY = FILE_COPY");
  url_ = with_database(admin_url(), name_);
}

// The drop is sent and not waited for: the server carries it out while this test process ends
// (a backend finishes the statement it has read before it notices its client has gone), which
// takes about 0.2 s off every test. The cluster is a throwaway one either way.
TestDatabase::~TestDatabase() {
  std::unique_ptr<PGconn, decltype(&PQfinish)> c(PQconnectdb(admin_url().c_str()), PQfinish);
  const std::string drop = "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)";
  if (PQstatus(c.get()) != CONNECTION_OK || PQsendQuery(c.get(), drop.c_str()) != 1) {
    ADD_FAILURE() << "dropping " << name_ << ": " << PQerrorMessage(c.get());
    return;
  }
  while (PQflush(c.get()) == 1) {
  }
}

// --- TempCluster --------------------------------------------------------------------------

// Chosen below Linux's ephemeral range (32768-60999), as scripts/lib.sh's free_port is: a port the
// kernel hands out for port 0 is one that an outgoing connection may take between this check and
// the server's bind (a TempCluster's PostgreSQL once failed to start so, in scripts/test).
int free_port() {
  std::random_device seed;
  std::mt19937 random(seed());
  std::uniform_int_distribution<int> pick(20000, 31999);
  asio::io_context io;
  for (int tries = 0; tries < 1000; ++tries) {
    const int port = pick(random);
    boost::system::error_code ec;
    tcp::acceptor a(io);
    a.open(tcp::v4(), ec);
    if (!ec) a.bind(tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)), ec);
    if (!ec) return port;
  }
  throw std::runtime_error("no free port on 127.0.0.1 in 20000-31999");
}

std::string project_root() { return env_or("PROJECT_ROOT", PROJECT_ROOT_DIR); }

namespace {

void run_script(const std::string& args) {
  const std::string cmd = project_root() + "/scripts/pg-cluster " + args + " >/dev/null";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("failed: scripts/pg-cluster " + args);
}

}  // namespace

TempCluster::TempCluster() : password_(random_hex(12)), port_(free_port()) {
  dir_ = (std::filesystem::temp_directory_path() / ("pgtest-" + random_hex(6))).string();
  std::filesystem::create_directories(dir_);
  std::filesystem::permissions(dir_, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                         std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                         std::filesystem::perms::others_exec);
  const std::string data = dir_ + "/data";
  setenv("PG_FAST", "1", 1);
  run_script("init " + data + " " + std::to_string(port_) + " " + password_);
  start();
}

TempCluster::~TempCluster() {
  try {
    thaw();
    run_script("stop " + dir_ + "/data immediate");
  } catch (...) {
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void TempCluster::start() { run_script("start " + dir_ + "/data"); }

void TempCluster::freeze() { signal_all(SIGSTOP); }
void TempCluster::thaw() { signal_all(SIGCONT); }

// The postmaster (postmaster.pid's first line) and its children (by /proc/<pid>/stat's parent).
void TempCluster::signal_all(int signo) {
  std::ifstream pid_file(dir_ + "/data/postmaster.pid");
  pid_t postmaster = 0;
  if (!(pid_file >> postmaster) || postmaster <= 0) return;  // not running
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto after_name = line.rfind(')');  // "pid (comm) state ppid ...": comm may hold spaces
    if (after_name == std::string::npos) continue;
    std::istringstream rest(line.substr(after_name + 1));
    char state;
    pid_t parent = 0;
    if (rest >> state >> parent && parent == postmaster) children.push_back(std::stoi(name));
  }
  ::kill(postmaster, signo);
  for (const pid_t child : children) ::kill(child, signo);
}
void TempCluster::stop(std::string_view mode) { run_script("stop " + dir_ + "/data " + std::string(mode)); }

std::string TempCluster::url(std::string_view database) const {
  return "postgresql://postgres:" + password_ + "@127.0.0.1:" + std::to_string(port_) + "/" + std::string(database);
}

// --- HTTP ---------------------------------------------------------------------------------

std::string HttpResponse::header(const std::string& name) const {
  const auto it = headers.find(to_lower(name));
  return it == headers.end() ? "" : it->second;
}

struct HttpClient::Impl {
  asio::io_context io;
  beast::tcp_stream stream{io};
  beast::flat_buffer buffer;
  std::string host;  // "127.0.0.1:<port>", as a browser sends it
  std::uint16_t port = 0;
};

HttpClient::HttpClient(std::uint16_t port) : impl_(std::make_unique<Impl>()) {
  impl_->stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  impl_->host = "127.0.0.1:" + std::to_string(port);
  impl_->port = port;
}

HttpClient::~HttpClient() = default;

void HttpClient::send_raw(std::string_view bytes) {
  impl_->stream.expires_after(std::chrono::seconds(10));
  asio::write(impl_->stream, asio::buffer(bytes.data(), bytes.size()));
}

HttpResponse HttpClient::read_response() {
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  impl_->stream.expires_after(std::chrono::seconds(30));
  bhttp::read(impl_->stream, impl_->buffer, parser);
  const auto& msg = parser.get();
  HttpResponse out;
  out.status = msg.result_int();
  for (const auto& f : msg) {
    auto& value = out.headers[to_lower(f.name_string())];
    value += (value.empty() ? "" : "\n") + std::string(f.value());
  }
  out.body = msg.body();
  return out;
}

namespace {

struct Documented {
  std::mutex mutex;
  std::map<std::uint16_t, std::shared_ptr<const openapi::Conformance>> ports;
};
Documented& documented() {
  static Documented d;
  return d;
}

std::shared_ptr<const openapi::Conformance> document_of(std::uint16_t port) {
  auto& d = documented();
  std::lock_guard lock(d.mutex);
  const auto it = d.ports.find(port);
  return it == d.ports.end() ? nullptr : it->second;
}

// OPENAPI_RECORD=<directory>: each exchange with a documented service as a JSON line, in a file
// of this process's own (ctest runs suites side by side).
void record(const openapi::Conformance& document, const std::string& method, const std::string& target,
            const std::string& request_body, const std::string& request_type, const HttpResponse& res) {
  static const char* directory = std::getenv("OPENAPI_RECORD");
  if (!directory || !*directory) return;
  static const std::string file = std::string(directory) + "/" + std::to_string(::getpid()) + ".jsonl";
  static std::mutex mutex;
  nlohmann::json line = {{"method", method},
                         {"path", document.path_of(target)},
                         {"target", target},
                         {"status", res.status},
                         {"content_type", res.header("content-type")},
                         {"request_type", request_type},
                         {"test", ::testing::UnitTest::GetInstance()->current_test_info()
                                      ? std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())
                                      : ""}};
  line["request"] = nlohmann::json::parse(request_body, nullptr, false);
  if (line["request"].is_discarded())
    line["request"] = request_body.empty() ? nlohmann::json() : nlohmann::json("<text>");
  line["response"] = nlohmann::json::parse(res.body, nullptr, false);
  if (line["response"].is_discarded())
    line["response"] = res.body.empty() ? nlohmann::json() : nlohmann::json("<text>");
  std::lock_guard lock(mutex);
  std::ofstream(file, std::ios::app) << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

void document_port(std::uint16_t port, std::shared_ptr<const openapi::Conformance> document) {
  auto& d = documented();
  std::lock_guard lock(d.mutex);
  d.ports[port] = std::move(document);
}

void forget_port(std::uint16_t port) {
  auto& d = documented();
  std::lock_guard lock(d.mutex);
  d.ports.erase(port);
}

HttpResponse HttpClient::request(std::string method, std::string target, std::string body,
                                 std::map<std::string, std::string> headers) {
  bhttp::request<bhttp::string_body> req{bhttp::string_to_verb(method), target, 11};
  req.method_string(method);
  req.set(bhttp::field::host, impl_->host);
  for (const auto& [k, v] : headers) req.set(k, v);
  if (!body.empty() && req.find(bhttp::field::content_type) == req.end())
    req.set(bhttp::field::content_type, "application/json");
  const auto document = document_of(impl_->port);
  const std::string request_body = document ? body : std::string();
  const std::string request_type = document && req.find(bhttp::field::content_type) != req.end()
                                       ? std::string(req[bhttp::field::content_type])
                                       : std::string();
  req.body() = std::move(body);
  req.prepare_payload();
  impl_->stream.expires_after(std::chrono::seconds(10));
  bhttp::write(impl_->stream, req);
  auto res = read_response();
  if (document) {
    // The answer as the service's OpenAPI document says it (core/openapi/conformance.hpp).
    for (const auto& e : document->errors(method, target, res.status, res.header("content-type"), res.body))
      ADD_FAILURE() << "not as documented: " << e << "\n  body: " << res.body.substr(0, 600);
    record(*document, method, target, request_body, request_type, res);
  }
  return res;
}

bool HttpClient::closed_by_server(std::chrono::milliseconds wait) {
  impl_->stream.expires_after(wait);
  char byte;
  beast::error_code ec;
  impl_->stream.read_some(asio::buffer(&byte, 1), ec);
  return ec == asio::error::eof || ec == asio::error::connection_reset;
}

HttpResponse http(std::uint16_t port, std::string method, std::string target, std::string body,
                  std::map<std::string, std::string> headers) {
  HttpClient c(port);
  return c.request(std::move(method), std::move(target), std::move(body), std::move(headers));
}

std::vector<TimedResponse> at_once(int count, const std::function<HttpResponse(int i)>& request) {
  std::vector<TimedResponse> answers(static_cast<std::size_t>(count));
  std::vector<std::jthread> threads;
  for (int i = 0; i < count; ++i)
    threads.emplace_back([&, i] {
      const auto asked = std::chrono::steady_clock::now();
      answers[i].response = request(i);
      answers[i].took = std::chrono::steady_clock::now() - asked;
    });
  threads.clear();  // joins them
  return answers;
}

// --- RunningService -----------------------------------------------------------------------

namespace {

// A service's document, built once a test process: its routes do not change from one test's
// settings to another's (RoutesTest.TheCommittedOpenApiDocumentIsCurrent holds them to the
// committed copy), and building it reads every API description, a noticeable cost under the
// sanitizers when each of a suite's tests starts a service. Keyed by the definition and the
// number of routes, so a service that registered others gets its own.
std::shared_ptr<const openapi::Conformance> conformance_of(const app::ServiceDefinition& def,
                                                           const http::Router& router) {
  static std::mutex mutex;
  static std::map<std::pair<const app::ServiceDefinition*, std::size_t>, std::shared_ptr<const openapi::Conformance>>
      built;
  std::lock_guard lock(mutex);
  auto& entry = built[{&def, router.routes().size()}];
  if (!entry) entry = std::make_shared<const openapi::Conformance>(app::api_document(def, router));
  return entry;
}

}  // namespace

RunningService::RunningService(const app::ServiceDefinition& def, const std::string& database_url,
                               config::Environment extra, std::shared_ptr<async::Clock> clock) {
  config::Environment env = {{"DATABASE_URL", database_url},
                             {"PORT", "0"},
                             {"HTTP_THREADS", "2"},
                             {"LOG_LEVEL", "warn"},
                             {"ACCESS_LOG", "false"},
                             {"DB_POOL_SIZE", "4"},
                             {"METRICS_ADDRESS", "127.0.0.1:0"}};
  for (auto& [k, v] : extra) env[k] = v;
  service_ = std::make_unique<app::Service>(def, std::move(env), clock ? std::move(clock) : async::Clock::steady());
  service_->start();
  documented_port_ = service_->port();
  document_port(documented_port_, conformance_of(def, service_->router()));
}

RunningService::~RunningService() {
  forget_port(documented_port_);
  service_->stop();
}

IoThreads::IoThreads(int threads) : work_(std::make_unique<decltype(work_)::element_type>(io_.get_executor())) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { io_.run(); });
}

IoThreads::~IoThreads() {
  work_.reset();
  for (auto& t : threads_) t.join();
}

// --- Process ------------------------------------------------------------------------------

struct Process::Impl {
  pid_t pid = -1;
  int exit_code = -1;
  bool exited = false;
  int err_fd = -1;
  std::thread reader;
  mutable std::mutex mutex;
  std::string err;
};

Process::Process(const std::string& binary, std::vector<std::string> args, std::map<std::string, std::string> env)
    : impl_(std::make_unique<Impl>()) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  env.emplace("PATH", env_or("PATH", "/usr/bin:/bin"));
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  args.insert(args.begin(), binary);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int rc = posix_spawn(&impl_->pid, binary.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw std::runtime_error("cannot start " + binary + ": " + std::strerror(rc));
  }
  impl_->err_fd = fds[0];
  impl_->reader = std::thread([impl = impl_.get()] {
    char buf[4096];
    for (;;) {
      const auto n = read(impl->err_fd, buf, sizeof buf);
      if (n <= 0) break;
      std::lock_guard lock(impl->mutex);
      impl->err.append(buf, static_cast<std::size_t>(n));
    }
  });
}

Process::~Process() {
  if (!impl_->exited) {
    kill(impl_->pid, SIGKILL);
    wait_exit(std::chrono::seconds(5));
  }
  if (impl_->reader.joinable()) impl_->reader.join();
  close(impl_->err_fd);
}

void Process::signal(int signo) { kill(impl_->pid, signo); }

std::optional<int> Process::wait_exit(std::chrono::milliseconds limit) {
  const bool done = eventually(
      [&] {
        if (impl_->exited) return true;
        int status = 0;
        if (waitpid(impl_->pid, &status, WNOHANG) != impl_->pid) return false;
        impl_->exited = true;
        impl_->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
      },
      limit);
  if (!done) return std::nullopt;
  if (impl_->reader.joinable()) impl_->reader.join();
  return impl_->exit_code;
}

std::string Process::stderr_text() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->err;
}

std::optional<nlohmann::json> Process::wait_for_log(const std::string& msg, std::chrono::milliseconds limit) {
  std::optional<nlohmann::json> found;
  eventually(
      [&] {
        const std::string text = stderr_text();  // split() returns views into it
        for (auto line : split(text, '\n')) {
          auto j = nlohmann::json::parse(line, nullptr, false);
          if (j.is_object() && j.value("msg", "") == msg) {
            found = j;
            return true;
          }
        }
        return false;
      },
      limit);
  return found;
}

std::string everything_stored(const std::string& url) {
  const std::string each =
      sql(url,
          "SELECT string_agg(format('SELECT coalesce((SELECT string_agg(t::text, '' '') FROM %I.%I t), '''')', "
          "schemaname, tablename), ' UNION ALL ') FROM pg_tables WHERE schemaname = 'public'");
  return each.empty() ? std::string() : sql(url, "SELECT string_agg(x, ' ') FROM (" + each + ") u(x)");
}

// The log writes in batches (core/log/log.hpp): what waits is written out before the capture starts
// and before it ends, so the capture holds exactly the lines logged while it lasted.
CapturedLog::CapturedLog() {
  log::flush();
  ::testing::internal::CaptureStderr();
}

CapturedLog::~CapturedLog() {
  if (!capturing_) return;
  log::flush();
  (void)::testing::internal::GetCapturedStderr();
}

std::string CapturedLog::text() {
  if (!capturing_) throw std::logic_error("the captured log was read already");
  capturing_ = false;
  log::flush();
  return ::testing::internal::GetCapturedStderr();
}

Said said(std::string logged, const std::string& database_url, const std::vector<HttpResponse>& answers) {
  Said out{.logged = std::move(logged), .stored = everything_stored(database_url)};
  for (const auto& a : answers) out.answered += std::to_string(a.status) + " " + a.body + "\n";
  return out;
}

void expect_no_secret(const Said& said, const std::vector<std::string>& echoed,
                      const std::vector<std::string>& configured, char filler_byte) {
  EXPECT_FALSE(echoed.empty()) << "the fake echoed nothing";
  std::vector<std::string> secrets = echoed;
  secrets.insert(secrets.end(), configured.begin(), configured.end());
  const std::pair<const char*, const std::string*> places[] = {
      {"the log", &said.logged}, {"the database", &said.stored}, {"an answer", &said.answered}};
  for (const auto& secret : secrets) {
    EXPECT_GE(secret.size(), 8u) << secret;
    for (const auto& [where, text] : places)
      EXPECT_EQ(text->find(secret), std::string::npos) << secret << " in " << where;
  }
  const std::string filler(2100, filler_byte);  // more than core::secrets::quote keeps
  for (const auto& [where, text] : places)
    EXPECT_EQ(text->find(filler), std::string::npos) << "an echoed body whole in " << where;
  for (const auto line : split(said.logged, '\n')) EXPECT_LT(line.size(), 16'384u) << line.substr(0, 300);
  EXPECT_NE((said.logged + said.stored + said.answered).find("[redacted]"), std::string::npos)
      << "the echo reached no log line, stored text or answer";
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

}  // namespace core::testing
