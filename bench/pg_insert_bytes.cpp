// The baseline of bench/ops-console-integrations' upload figures: a plain PostgreSQL insert of
// the same bytes, each file one row of
//   bench_bytes (id bigserial PRIMARY KEY, content bytea NOT NULL)
// sent as one binary parameter with libpq, JOBS connections at once (each takes the next file).
//
//   pg-insert-bytes CONNINFO JOBS FILE...   → prints the seconds from the first insert to the last
//
// The files are read and the connections opened before the clock starts.
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "pg-insert-bytes: %s\n", what.c_str());
  std::exit(1);
}

std::string read_bytes(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(std::string("cannot read ") + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) fail("usage: pg-insert-bytes CONNINFO JOBS FILE...");
  const int jobs = std::atoi(argv[2]);
  if (jobs < 1) fail("JOBS must be at least 1");
  std::vector<std::string> files;
  for (int i = 3; i < argc; ++i) files.push_back(read_bytes(argv[i]));

  std::vector<PGconn*> conns;
  for (int j = 0; j < jobs; ++j) {
    PGconn* conn = PQconnectdb(argv[1]);
    if (PQstatus(conn) != CONNECTION_OK) fail(PQerrorMessage(conn));
    conns.push_back(conn);
  }

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  const auto insert_all = [&](PGconn* conn) {
    for (std::size_t i; (i = next++) < files.size();) {
      const char* values[] = {files[i].data()};
      const int lengths[] = {static_cast<int>(files[i].size())};
      const int formats[] = {1};  // binary
      PGresult* res =
          PQexecParams(conn, "INSERT INTO bench_bytes (content) VALUES ($1)", 1, nullptr, values, lengths, formats, 0);
      if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        std::fprintf(stderr, "pg-insert-bytes: %s", PQerrorMessage(conn));
        failed = true;
      }
      PQclear(res);
    }
  };

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (PGconn* conn : conns) threads.emplace_back(insert_all, conn);
  for (auto& t : threads) t.join();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;

  for (PGconn* conn : conns) PQfinish(conn);
  if (failed) return 1;
  std::printf("%.4f\n", took.count());
  return 0;
}
