#pragma once
// The console registers every route through Routes, which declares the route's access where it
// is registered. The default is a signed-in user (401 without a session, before the handler
// runs); a route is public only when it says Access::open(), and the spec's allowlist (plus
// sign-in, sign-out and first-login setup) says which may. `ops-console routes` lists them all.
//
//   Routes routes(ctx.router, identity);
//   routes.get("/api/me/theme", handler);                                        // auth
//   routes.get("/api/admin/company-scope", Access::admin(), handler);           // admin
//   routes.get("/api/admin/integrations", Access::permission("admin", "access"), handler);
//   routes.post("/api/auth/login", Access::open(), handler);                    // public
//   routes.get("/api/agent/repo-commits", Access::agent(), handler);            // an agent's token
#include "core/http/router.hpp"
#include "core/openapi/document.hpp"
#include "ops_console/identity/identity.hpp"

#include <memory>
#include <string>

namespace ops_console::identity {

class Access {
 public:
  static Access open() { return Access(Level::open); }
  static Access signed_in() { return Access(Level::signed_in); }
  static Access admin() { return Access(Level::admin); }
  // Signed in, a wall display's account (User::kiosk) included: the kiosk view and who is signed in.
  static Access kiosk_view() { return Access(Level::kiosk_view); }
  // An agent instance's bearer token, not a session (identity.hpp, agent()).
  static Access agent() { return Access(Level::agent); }
  static Access permission(std::string resource, std::string action);

  // As the README's tables and `ops-console routes` write it: public, auth, kiosk, admin, agent,
  // perm(r, a).
  std::string describe() const;
  // The handler behind this access check.
  core::http::Handler guard(std::shared_ptr<Identity> identity, core::http::Handler handler) const;

 private:
  enum class Level { open, signed_in, kiosk_view, admin, agent, permission };
  explicit Access(Level level) : level_(level) {}
  Level level_;
  std::string resource_, action_;
};

// How the access words above are documented (core/openapi/document.hpp): a session cookie for
// every signed-in level, an agent's bearer token, nothing for a public route (one that checks a
// signature or an upload token itself says so in its API description).
core::openapi::Access documented_access();

class Routes {
 public:
  Routes(core::http::Router& router, std::shared_ptr<Identity> identity);

  void add(core::http::Verb method, std::string_view path, const Access& access, core::http::Handler handler);

  // Signed in, unless an Access says otherwise.
  void get(std::string_view path, core::http::Handler h) { get(path, Access::signed_in(), std::move(h)); }
  void post(std::string_view path, core::http::Handler h) { post(path, Access::signed_in(), std::move(h)); }
  void put(std::string_view path, core::http::Handler h) { put(path, Access::signed_in(), std::move(h)); }
  void patch(std::string_view path, core::http::Handler h) { patch(path, Access::signed_in(), std::move(h)); }
  void del(std::string_view path, core::http::Handler h) { del(path, Access::signed_in(), std::move(h)); }

  void get(std::string_view path, const Access& a, core::http::Handler h) {
    add(core::http::Verb::get, path, a, std::move(h));
  }
  void post(std::string_view path, const Access& a, core::http::Handler h) {
    add(core::http::Verb::post, path, a, std::move(h));
  }
  void put(std::string_view path, const Access& a, core::http::Handler h) {
    add(core::http::Verb::put, path, a, std::move(h));
  }
  void patch(std::string_view path, const Access& a, core::http::Handler h) {
    add(core::http::Verb::patch, path, a, std::move(h));
  }
  void del(std::string_view path, const Access& a, core::http::Handler h) {
    add(core::http::Verb::delete_, path, a, std::move(h));
  }

 private:
  core::http::Router& router_;
  std::shared_ptr<Identity> identity_;
};

}  // namespace ops_console::identity
