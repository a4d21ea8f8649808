#pragma once
// The fakes the sandbox serves, and a way to run them inside a test process.
//
//   sandbox::InProcess fakes;                       // a free loopback port, its own I/O thread
//   fakes.graph().seed("inbox@msp.example", 50);
//   env["GRAPH_BASE_URL"] = fakes.url();
//   fakes.autotask().seed({.tickets = 200});
//   env["PSA_BASE_URL"] = fakes.url() + "/autotask/atservicesrest/";
//   fakes.gitforge().configure_receiver("agent-1", "secret");  // POST <url>/agent/agent-1/events
//   fakes.pax8().seed({.companies = 100});
//   env["DISTRIBUTOR_BASE_URL"] = fakes.url() + "/pax8";
//   fakes.xero().seed({});                          // ACCOUNTING_*_URL: <url>/xero/... (xero_fake.hpp)
//   fakes.mimecast(), fakes.duo(), fakes.sentinelone(): MAILSEC_, MFA_, ENDPOINTSEC_BASE_URL (their headers)
//   fakes.datto().seed({});                         // BACKUP_BASE_URL: <url>/datto/v1/bcdr
//   fakes.cloudflare(): ACCESS_GATEWAY_BASE_URL = <url>/cloudflare/client/v4 (cloudflare_access_fake.hpp)
#include "core/http/router.hpp"
#include "sandbox/autotask_fake.hpp"
#include "sandbox/cloudflare_access_fake.hpp"
#include "sandbox/datto_fake.hpp"
#include "sandbox/duo_fake.hpp"
#include "sandbox/gitforge_fake.hpp"
#include "sandbox/graph_fake.hpp"
#include "sandbox/mimecast_fake.hpp"
#include "sandbox/model_fake.hpp"
#include "sandbox/notify_fake.hpp"
#include "sandbox/pax8_fake.hpp"
#include "sandbox/sentinelone_fake.hpp"
#include "sandbox/tacticalrmm_fake.hpp"
#include "sandbox/xero_fake.hpp"

#include <memory>
#include <string>

namespace sandbox {

struct Fakes {
  explicit Fakes(GraphFakeOptions graph_options = {}, ModelFakeOptions model_options = {},
                 AutotaskFakeOptions autotask_options = {})
      : graph(std::move(graph_options)), model(std::move(model_options)), autotask(std::move(autotask_options)) {}
  GraphFake graph;
  ModelFake model;
  NotifyFake notify;
  AutotaskFake autotask;
  GitforgeFake gitforge;
  Pax8Fake pax8;
  XeroFake xero;
  MimecastFake mimecast;
  DuoFake duo;
  SentinelOneFake sentinelone;
  DattoFake datto;
  TacticalRmmFake tacticalrmm;
  CloudflareAccessFake cloudflare;
};

// /healthz, /readyz, /_sandbox (the index of fakes) and every fake's routes.
core::http::Router routes(Fakes& fakes);

class InProcess {
 public:
  explicit InProcess(GraphFakeOptions graph_options = {}, ModelFakeOptions model_options = {},
                     AutotaskFakeOptions autotask_options = {});
  ~InProcess();
  std::uint16_t port() const;
  std::string url() const;  // http://127.0.0.1:<port>
  GraphFake& graph();
  ModelFake& model();
  NotifyFake& notify();
  AutotaskFake& autotask();
  GitforgeFake& gitforge();
  Pax8Fake& pax8();
  XeroFake& xero();
  MimecastFake& mimecast();
  DuoFake& duo();
  SentinelOneFake& sentinelone();
  DattoFake& datto();
  TacticalRmmFake& tacticalrmm();  // RMM_BASE_URL = url() + "/tacticalrmm"
  CloudflareAccessFake& cloudflare();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sandbox
