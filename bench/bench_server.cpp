// The server measured by bench/run: the full core stack (Beast server, request id, access log,
// problem mapping, router, async pool) with one route that runs the statement pgbench -S runs:
//   GET /accounts/{aid}  →  SELECT abalance FROM pgbench_accounts WHERE aid = $1
// It uses the same ServiceDefinition machinery as the real services, so its environment
// variables (PORT, DATABASE_URL, DB_POOL_SIZE, HTTP_THREADS, ACCESS_LOG, ...) are theirs.
#include "core/app/service.hpp"
#include "core/http/problem.hpp"

using core::http::Request;
using core::http::Response;

namespace {

constexpr std::string_view kSelectBalance = R"sql(
  SELECT abalance FROM pgbench_accounts WHERE aid = $1
)sql";

}  // namespace

int main(int argc, char** argv) {
  static const core::app::ServiceDefinition def{
      .name = "bench-server",
      .summary = "benchmark target: GET /accounts/{aid} runs pgbench's primary-key SELECT",
      .default_port = 8099,
      .default_database = "bench",
      .migrations = {},
      .configure = [](core::config::Reader&) -> core::app::Setup {
        return [](core::app::Context& ctx) {
          ctx.router.get("/accounts/{aid:int}", [&db = ctx.db](Request& req) -> boost::asio::awaitable<Response> {
            const auto rows = co_await db.query(kSelectBalance, std::string(req.param("aid")));
            if (rows.empty()) throw core::http::Problem::not_found("no such account");
            co_return Response::json(
                {{"aid", std::stoll(std::string(req.param("aid")))}, {"abalance", rows.front().get<std::int64_t>(0)}});
          });
        };
      },
  };
  return core::app::main(argc, argv, def);
}
