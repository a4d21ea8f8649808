#pragma once
// Method + path-template routing.
//
//   router.get("/api/v1/log/{entry_id:uuid}", handler);
//
// Templates are '/'-separated; a segment is a literal or `{name}`, `{name:uuid}`, `{name:int}`.
// A literal segment wins over a parameter at the same position. A parameter of the wrong type
// is a 400 naming it (the path exists, the value is malformed), checked after the route's guard
// (below), so a caller who may not use the route learns nothing of its parameters; an unknown
// path is a 404; a known path with another method is a 405 with `Allow`. HEAD is answered by a
// GET route without body.
#include "core/http/message.hpp"

#include <boost/asio/awaitable.hpp>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace core::http {

// A registered route, for listings (`<binary> routes`) and for tests that walk every route.
struct RouteInfo {
  Verb method;
  std::string path;    // the template, as registered
  std::string access;  // what a caller needs, in the service's words ("public", "auth", "admin",
                       // "perm(admin, access)"); empty when the service did not say
};

class Router {
 public:
  Router();
  ~Router();
  Router(Router&&) noexcept;
  Router& operator=(Router&&) noexcept;

  // What lets a caller in (a session, a key, a permission): it wraps the route's handler and
  // answers 401 or 403 itself. The router puts it in front of everything the route checks, its
  // typed parameters included: access first, then validation, then the handler.
  using Guard = std::function<Handler(Handler)>;

  // Throws std::invalid_argument for a malformed template or a route registered twice.
  void add(Verb method, std::string_view path_template, Handler handler, std::string access = {},
           const Guard& guard = {});
  void get(std::string_view t, Handler h) { add(Verb::get, t, std::move(h)); }
  void post(std::string_view t, Handler h) { add(Verb::post, t, std::move(h)); }
  void put(std::string_view t, Handler h) { add(Verb::put, t, std::move(h)); }
  void patch(std::string_view t, Handler h) { add(Verb::patch, t, std::move(h)); }
  void del(std::string_view t, Handler h) { add(Verb::delete_, t, std::move(h)); }

  // A route that admits its body itself (the log-evidence upload): the server runs `admit` once the
  // header is read and before the body is, so a refused caller's body is never read (the
  // connection is closed after the answer), and reads the body with `limit` instead of the
  // server's body_limit (a larger Content-Length: 413 at once; a chunked body: 413 on the byte
  // past it). `admit` throws Problem to refuse; what it learns it keeps in the request
  // (Request::set), where the route's handler finds it. Only literal paths are gated.
  struct BodyGate {
    std::size_t limit = 0;
    std::function<boost::asio::awaitable<void>(Request&)> admit;
    // The handler reads the body itself, as it arrives (Request::body_stream), instead of the
    // server reading all of it first.
    bool stream = false;
  };
  void gate_body(Verb method, std::string path, BodyGate gate);
  // The gate of the request's method and path, or nullptr.
  const BodyGate* body_gate(const Request& req) const;
  // The largest limit of any gate (0 with none): what the server lets a header announce.
  std::size_t largest_gated_body() const;

  // Every route, in the order registered.
  const std::vector<RouteInfo>& routes() const { return routes_; }

  // For a service whose access is checked by middleware, by path, rather than per route: gives
  // each route registered without an access the one `rule` returns for its path, so that the
  // listing (`<binary> routes`) says what the middleware enforces.
  void declare_access(const std::function<std::string(std::string_view path)>& rule);

  // Finds the handler for the request and fills req.params; throws Problem (400 for a malformed
  // percent-escape, 404, 405). Typed parameters are checked by the handler it returns.
  const Handler& resolve(Request& req) const;

  // The index in routes() of the route that would take the request, or -1: what resolve() records
  // in Request::route, for a request answered before routing (a middleware's 401). Never throws.
  int route_of(const Request& req) const;

  // Dispatches: resolve, then call. Answers HEAD with the GET response minus its body.
  boost::asio::awaitable<Response> operator()(Request& req) const;

 private:
  struct Node;
  // A route has at most this many parameters (add() refuses more), so that finding a request's
  // route needs no allocation until its values are stored in Request::params.
  static constexpr std::size_t kMaxParams = 8;
  struct Params {
    struct Param {
      const Node* owner;
      std::string_view raw;  // the segment as sent (a view into the path), not yet decoded
    };
    std::array<Param, kMaxParams> items;
    std::size_t size = 0;
  };
  // The node `path` leads to (a literal segment before a parameter), or nullptr; `malformed` says
  // a segment's percent-escape did not decode. `params`, when given, takes each parameter's owner
  // and segment. The one matching rule of resolve() and route_of().
  const Node* walk(std::string_view path, Params* params, bool& malformed) const;
  std::unique_ptr<Node> root_;
  std::vector<RouteInfo> routes_;
  // By method and path; found with a view of the request's path, without copying it.
  struct GateOrder {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return std::pair<Verb, std::string_view>(a.first, a.second) <
             std::pair<Verb, std::string_view>(b.first, b.second);
    }
  };
  std::map<std::pair<Verb, std::string>, BodyGate, GateOrder> gates_;
};

}  // namespace core::http
