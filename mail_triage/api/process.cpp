#include "mail_triage/api/process.hpp"

#include "core/async/bounded_executor.hpp"
#include "core/http/problem.hpp"

namespace mail_triage {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;

void install_process_routes(core::app::Context& ctx, std::shared_ptr<pipeline::Triage> triage) {
  // { processed } as the spec says; `mailbox_errors` is added only when a mailbox could not be
  // read. When none could, the run is a 502 naming what the mail platform said.
  ctx.router.post("/api/v1/process", [triage](Request&) -> awaitable<Response> {
    // A run is a batch, not an interactive request: its statements keep the pool's timeout rather
    // than DB_REQUEST_TIMEOUT_MS (a statement slow under load should not abandon the run).
    co_await core::async::lift_bounds();
    const auto result = co_await triage->run();
    if (!result.mailbox_errors.empty() && result.mailbox_errors.size() == triage->settings().mailboxes.size()) {
      throw Problem(core::http::Status::bad_gateway, "mail-platform-error",
                    "no mailbox could be read: " + result.mailbox_errors.front().second);
    }
    nlohmann::json body = {{"processed", result.processed}};
    for (const auto& [mailbox, error] : result.mailbox_errors)
      body["mailbox_errors"].push_back({{"mailbox", mailbox}, {"error", error}});
    co_return Response::json(body);
  });
}

}  // namespace mail_triage
