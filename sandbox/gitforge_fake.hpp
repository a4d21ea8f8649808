#pragma once
// Both ends of the console's source-control integration:
//
// 1. Agent receivers: each stands for an agent instance the console forwards push events to, and
//    verifies them as the contract says (Standard Webhooks, core/util/standard_webhooks.hpp). The
//    console POSTs JSON with
//      Content-Type: application/json
//      X-Ops-Event: gitforge.push
//      webhook-id: <msg_..., unique per copy to this instance; a retry repeats it>
//      webhook-timestamp: <unix seconds, decimal>
//      webhook-signature: v1,<base64 HMAC-SHA256 under the key of "<webhook-id>.<timestamp>.<raw body>">
//    The key is the receiver's secret base64-decoded after whsec_, or an older secret's own bytes.
//
//   POST /agent/{name}/events      404 {"error"} for a receiver never configured (not recorded). Otherwise
//                                  recorded, then, first match wins:
//                                  an armed fault → its status {"error"} (Retry-After when retry_after > 0);
//                                  webhook-id, webhook-timestamp or webhook-signature missing → 400 {"error"};
//                                  webhook-timestamp not decimal digits → 400 {"error"};
//                                  timestamp more than 300 s from this clock → 401 {"error": "stale timestamp"};
//                                  no v1 entry of the signature matches (constant time) → 401 {"error": "bad signature"};
//                                  body not a JSON object → 400 {"error"};
//                                  a webhook-id this receiver accepted before → 200 {accepted: true, duplicate: true};
//                                  else remembered and 200 {accepted: true, duplicate: false}
//
//   Control routes, under /_sandbox/agent:
//   PUT    /_sandbox/agent/receivers/{name}   {secret} (non-empty): configure or reconfigure → 204
//   PUT    /_sandbox/agent/faults             {receiver, status, count, retry_after?}: the next `count`
//                                             deliveries to that receiver are answered `status` → 204
//   PUT    /_sandbox/agent/latency            {receiver, latency_ms}: every delivery to that receiver waits
//                                             `latency_ms` (0: none) before it is taken as above and answered,
//                                             taken also when its sender has gone meanwhile (an answer lost)
//                                             → 204; in_flight(receiver) counts those waiting
//   GET    /_sandbox/agent/received?receiver=name
//          → [{receiver, webhook_id, event, timestamp, signature, verified (signature and timestamp good), status
//             (what was answered), duplicate (answered as a repeat), body (parsed JSON, or the raw string),
//             raw_body}] oldest first, the last 1,000
//   DELETE /_sandbox/agent/received           forget arrivals, faults and remembered webhook ids (not the
//                                             receivers) → 204
//
// 2. The push sender: stands for GitHub or Gitea delivering a webhook to the console.
//
//   POST /_sandbox/gitforge/push  {url, secret?, forge?: github|gitea, event?: push|ping|<other>, repository?,
//                                 branch?, pusher?, commits?: N (0..50) | [{id?, message, author_name?,
//                                 author_email?}], delivery?, bad_signature?}
//          → {status: the console's, body: its body (parsed when JSON), delivery, payload: the JSON sent};
//            502 {error, status: 0, delivery, payload} when the console cannot be reached; 400 {error} for a
//            bad request. Defaults: github, push, "msp/ops-scripts", "main", "alice", 1 commit, a fresh UUID.
//            A secret that is absent or empty sends no signature header. bad_signature signs with the wrong
//            key ("not-" + secret).
//
//   Payloads. GitHub's push event (docs.github.com/webhooks/webhook-events-and-payloads, #push): ref, before,
//   after, repository, pusher {name, email}, sender, created/deleted/forced false, base_ref null, compare
//   (…/compare/<before 12>...<after 12>), commits [{id, tree_id, distinct, message, timestamp "…+00:00", url,
//   author, committer, added, removed, modified}], head_commit (the last, or null); compact JSON. Gitea's is
//   its api.PushPayload (go-gitea/gitea modules/structs/hook.go), which is not GitHub's key for key: ref,
//   before, after, compare_url, commits, total_commits, head_commit, repository, pusher, sender, where pusher
//   and sender are Gitea users {id, login, full_name, email, username, ...}, commits have verification (null)
//   and no tree_id/distinct, and timestamps are Go's RFC 3339 ("…Z" in UTC). Gitea marshals with two-space
//   indentation and Go's HTML escaping (<, >, & as \u003c, \u003e, \u0026); the body is sent so, and
//   signed as sent. Commit ids are 40 lowercase hex, derived from repository, branch, message and index
//   unless given; `after` is the last one (`before` when there are none).
//   event "ping": GitHub's ping {zen, hook_id, hook {type, id, name: "web", active, events, config {url,
//   content_type, insecure_ssl}, ...}, repository, sender}. Gitea has no ping event: its "Test Delivery"
//   button sends a push event (X-Gitea-Event: push) of one fake commit, id 40 zeros, "This is a fake
//   commit" by Ghost, before = after = that id (routers/web/repo/setting/webhook.go, TestWebhook); that is
//   what ping sends for forge gitea. Any other event: {zen, hook_id, repository, sender} under that event name.
//
//   Headers. GitHub (the docs above, "Delivery headers"): Content-Type: application/json,
//   User-Agent: GitHub-Hookshot/<7 hex>, X-GitHub-Event, X-GitHub-Delivery, X-GitHub-Hook-ID,
//   X-GitHub-Hook-Installation-Target-Type: repository, X-GitHub-Hook-Installation-Target-ID: <repository id>;
//   with a secret X-Hub-Signature: sha1=<hex HMAC-SHA1> and X-Hub-Signature-256: sha256=<hex HMAC-SHA256>,
//   both of the raw body.
//   Gitea (go-gitea/gitea services/webhook/deliver.go, addDefaultHeaders; Go's client User-Agent):
//   Content-Type: application/json, User-Agent: Go-http-client/1.1, X-Gitea-Delivery, X-Gitea-Event,
//   X-Gitea-Event-Type, X-Gogs-Delivery, X-Gogs-Event, X-Gogs-Event-Type, X-GitHub-Delivery, X-GitHub-Event,
//   X-GitHub-Event-Type (the same id and event in each), and the GitHub-compatible X-Hub-Signature: sha1=…
//   and X-Hub-Signature-256: sha256=… beside X-Gitea-Signature and X-Gogs-Signature (bare hex HMAC-SHA256);
//   since Gitea 1.24 (go-gitea/gitea#33752) also X-Gitea-Hook-Installation-Target-Type and
//   X-GitHub-Hook-Installation-Target-Type: repository. One difference on purpose: Gitea sends its four
//   signature headers even without a secret, empty ("", "sha1=", "sha256="); this fake leaves them out then.
#include "core/http/client.hpp"
#include "core/http/router.hpp"

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sandbox {

struct AgentFault {
  int status = 503;
  int count = 0;
  int retry_after = 0;  // seconds; sent as Retry-After when > 0
};

// One commit of a push, as the route's "commits" array takes it; empty fields get the defaults.
struct PushCommit {
  std::string id;  // 40 hex; empty: derived from repository, branch, message and index
  std::string message;
  std::string author_name;   // empty: the pusher
  std::string author_email;  // empty: <author_name>@msp.example
};

// The body of POST /_sandbox/gitforge/push, field for field.
struct PushSpec {
  std::string url;  // the console's webhook URL
  std::string secret;
  std::string forge = "github";  // or "gitea"
  std::string event = "push";    // "ping", or any other event name
  std::string repository = "msp/ops-scripts";
  std::string branch = "main";
  std::string pusher = "alice";
  std::variant<int, std::vector<PushCommit>> commits = 1;  // how many (default messages), or which
  std::string delivery;                                    // empty: a fresh UUID (send_push)
  bool bad_signature = false;
  // When the push happened (commit timestamps end there, a minute apart). Unset: send_push uses now,
  // push_payload 2026-11-23T10:00:00Z, so that it stays a pure function of the spec.
  std::optional<std::chrono::sys_seconds> pushed_at;
};

class GitforgeFake {
 public:
  void install(core::http::Router& router);

  // Agent receivers; thread-safe.
  void configure_receiver(const std::string& name, const std::string& secret);
  void set_receiver_fault(const std::string& name, AgentFault fault);
  void set_receiver_latency(const std::string& name, std::chrono::milliseconds latency);
  int in_flight(const std::string& name) const;  // deliveries waiting out the latency
  // What arrived at `receiver` ("" for all), oldest first.
  nlohmann::json received(const std::string& receiver = "") const;
  void clear();  // arrivals, faults and remembered webhook ids; the receivers stay

  // The contract's headers of one delivery (webhook-id, webhook-timestamp, webhook-signature, X-Ops-Event),
  // for tests that play the console.
  static core::http::HeaderList agent_headers(std::string_view secret, std::string_view webhook_id,
                                              std::int64_t timestamp, std::string_view body);

  // The push sender. The payload `spec` describes (pure: no clock, no randomness).
  static nlohmann::json push_payload(const PushSpec& spec);
  // Posts it, signed, to spec.url, once; answers as the route does ({status: 0, error, ...} when the
  // console cannot be reached). Never throws for the console's sake.
  boost::asio::awaitable<nlohmann::json> send_push(PushSpec spec);

 private:
  struct Receiver {
    std::string secret;
    std::set<std::string> accepted;  // webhook ids accepted, the last 10,000
    std::deque<std::string> accepted_order;
  };

  core::http::Response deliver(const std::string& name, const core::http::Request& req);

  mutable std::mutex mutex_;
  std::map<std::string, Receiver> receivers_;
  std::map<std::string, AgentFault> faults_;
  std::map<std::string, std::chrono::milliseconds> latency_;
  std::map<std::string, int> in_flight_;
  std::deque<nlohmann::json> received_;
};

}  // namespace sandbox
