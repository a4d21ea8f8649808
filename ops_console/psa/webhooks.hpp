#pragma once
// The intake of the PSA's webhook callouts (issue 17; vendors.md, "PSA: Autotask REST").
//
//   WebhookIntake intake(db, client, settings.webhook_secret);   // client null: PSA not configured
//   const auto outcome = co_await intake.receive(callout);       // api/webhooks.cpp answers with it
//
// A callout is checked (the signature when a secret is set: 401 and nothing stored), read (a
// malformed payload is a 400 and a failed log row), then applied to the copy: Create and Update
// change the given fields of the row, or fetch the whole entity from the PSA when the copy lacks
// it; Delete soft-deletes. Every event is one row of webhook_events; a callout whose event is
// processed already is a duplicate, acknowledged and changing nothing, and one that failed before
// is tried again.
//
// The common callout, a Create or Update of a row the copy holds, is applied in groups: callouts
// that arrive while a group is being written wait for it, then go together, one statement per
// entity and one commit (core/async/batcher.hpp; one entity: the statement alone, its own
// transaction). Each is answered once the commit holding it is done, so an answered callout is
// never lost, and the commit's cost is shared.
#include "core/async/batcher.hpp"
#include "core/db/pool.hpp"
#include "core/http/message.hpp"
#include "core/http/problem.hpp"
#include "ops_console/psa/autotask.hpp"

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

namespace ops_console::psa {

struct Callout {
  std::string body;                      // raw, as signed
  std::optional<std::string> signature;  // X-Hook-Signature
  std::string source_ip;                 // X-Forwarded-For's first, X-Real-IP, else the peer
  std::string user_agent;
};

// The caller's address as the spec says to log it: the first address of X-Forwarded-For, else
// X-Real-IP, else the peer; at most 45 characters (the longest IPv6 text form).
std::string source_ip_of(const core::http::Request& req);

// What to answer: 200 with `body` ({status: processed | duplicate, event_id}), or the problem: 401
// a bad signature, 400 a malformed payload, 422 an entity the console does not copy, 502 the PSA
// failed while the copy needed it (Autotask then retries the callout).
struct Outcome {
  nlohmann::json body;
  std::optional<core::http::Problem> problem;
};

struct Entity;

class WebhookIntake {
 public:
  // At most this many callouts go in one group.
  static constexpr std::size_t kMaxGroup = 250;

  WebhookIntake(core::db::Pool& db, std::shared_ptr<AutotaskClient> psa, std::string secret);

  boost::asio::awaitable<Outcome> receive(Callout callout);

  // Callouts waiting for the group under way to be written (the webhook intake's queue depth).
  std::size_t waiting() const { return patches_.waiting(); }

  // One callout of a group: the entity it changes, and the event as the group statement reads it.
  struct Patch {
    const Entity* entity = nullptr;
    nlohmann::json event;
  };
  // What the group made of it: the event's status before ("" for none), whether the row was
  // patched and the event logged.
  struct Patched {
    std::string prior;
    bool patched = false;
  };

 private:
  bool signature_ok(const Callout& c) const;
  boost::asio::awaitable<std::vector<Patched>> apply(std::vector<Patch> group);

  core::db::Pool& db_;
  std::shared_ptr<AutotaskClient> psa_;
  std::string secret_;
  core::async::Batcher<Patch, Patched> patches_;
};

}  // namespace ops_console::psa
