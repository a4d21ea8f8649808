#pragma once
// The client of the remote-management service, Tactical RMM's REST API (../shared/vendors.md,
// "Remote management: Tactical RMM"; the facts and their sources are in sandbox/tacticalrmm_fake.hpp):
// header `X-API-KEY: <key>`, every path ends with a slash, lists are plain JSON arrays (no paging).
//
//   TacticalClient rmm(executor, settings, health);
//   json clients = co_await rmm.list("/clients/");          // each with its sites
//   json agents = co_await rmm.list("/agents/?detail=false");
//   RunResult r = co_await rmm.run_script(agent_id, script_id, args, timeout_seconds);
//
// Reads are retried on 429 and 5xx honouring Retry-After (core::http::Client). The run-script call
// is retried only on 429 (Django REST framework throttles before the view runs, so the script did
// not start); any other failure is not retried here, since the call may have reached the agent.
// A failure throws RmmError (a Problem 502) whose detail never carries the key; every call's
// outcome is recorded for the integration-health dashboard (integration key "rmm").
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "core/json/kept.hpp"
#include "ops_console/integrations/health.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ops_console::rmm {

struct RmmSettings {
  std::string base_url;  // https://api.<your domain>
  std::string api_key;
  std::chrono::milliseconds timeout{30'000};
  std::chrono::seconds lease_margin{120};  // an execution's lease beyond its timeout (executions.hpp)
  std::size_t output_limit = 64 * 1024;    // bytes of an execution's output kept

  std::vector<std::string> missing() const;
};

// RMM_BASE_URL, RMM_API_KEY (both or neither); a base URL that is not an absolute http(s) URL
// refuses start (exit 2).
RmmSettings read_rmm_settings(core::config::Reader& env);

struct RmmError : core::http::Problem {
  explicit RmmError(std::string detail) : Problem(core::http::Status::bad_gateway, "rmm-failed", std::move(detail)) {}
};

// What one run-script call came back with.
struct RunResult {
  enum class Kind { done, throttled, failed } kind = Kind::failed;
  std::string output;            // the agent's stdout + stderr (or Tactical's "timeout", "natsdown")
  std::optional<int> exit_code;  // from the agent's history entry of the run, when found
  std::string error;             // failed / throttled: why (masked)
  std::chrono::milliseconds retry_after{0};
};

class TacticalClient {
 public:
  TacticalClient(boost::asio::any_io_executor executor, RmmSettings settings, integrations::Health health);

  // GET of a list (a JSON array); `path` starts with '/' and ends with '/' (a query may follow).
  boost::asio::awaitable<nlohmann::json> list(std::string path);
  // The same, as the JSON text of what `kept` names of each item (core::json::kept_items): what a
  // sync binds to a statement, without a DOM of the ~30 fields of each agent.
  boost::asio::awaitable<std::string> list_text(std::string path, const core::json::Kept& kept);
  // POST /agents/<agent_id>/runscript/ with output "wait", then the exit code from the agent's
  // history (/agents/<agent_id>/history/: the newest script run of that script).
  boost::asio::awaitable<RunResult> run_script(std::string agent_id, std::int64_t script_id,
                                               std::vector<std::string> args, int timeout_seconds);

  // This client's calls held back to a health write a second (Health::Burst), for a sync's run.
  integrations::Health::Burst health_burst() const { return health_.burst("rmm"); }

 private:
  // The GET itself: a 2xx answer, else RmmError.
  boost::asio::awaitable<core::http::OutboundResponse> get(const std::string& path);

  RmmSettings settings_;
  core::http::Client http_;
  integrations::Health health_;
};

// Tactical's words for a failure: {"detail": ...} (Django REST framework) or a JSON string
// (its notify_error), masked and cut.
std::string rmm_reason_of(const core::http::OutboundResponse& res);

}  // namespace ops_console::rmm
