#include "core/http/router.hpp"

#include "core/http/problem.hpp"
#include "core/util/strings.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace core::http {

enum class ParamType { text, uuid, integer };

struct Router::Node {
  std::map<std::string, std::unique_ptr<Node>, std::less<>> literals;
  std::unique_ptr<Node> param;  // at most one parameter child per position
  std::string param_name;
  ParamType param_type = ParamType::text;
  struct Route {
    Handler handler;
    int index = 0;  // in Router::routes_
  };
  std::map<Verb, Route> handlers;
};

Router::Router() : root_(std::make_unique<Node>()) {}
Router::~Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;

namespace {

// The segments of a path that starts with '/', in order; "/" itself has none. Views into `path`.
template <class Each>
void for_each_segment(std::string_view path, Each&& each) {
  if (path.size() <= 1) return;
  for (std::string_view rest = path.substr(1);;) {
    const auto slash = rest.find('/');
    if (!each(rest.substr(0, slash)) || slash == std::string_view::npos) return;
    rest.remove_prefix(slash + 1);
  }
}

std::pair<std::string, ParamType> parse_param(std::string_view seg, std::string_view tmpl) {
  const auto inner = seg.substr(1, seg.size() - 2);
  const auto colon = inner.find(':');
  const auto name = std::string(inner.substr(0, colon));
  if (name.empty()) throw std::invalid_argument("empty parameter name in " + std::string(tmpl));
  if (colon == std::string_view::npos) return {name, ParamType::text};
  const auto type = inner.substr(colon + 1);
  if (type == "uuid") return {name, ParamType::uuid};
  if (type == "int") return {name, ParamType::integer};
  throw std::invalid_argument("unknown parameter type '" + std::string(type) + "' in " + std::string(tmpl));
}

template <class Routes>
std::string allow_header(const Routes& handlers) {
  std::string allow;
  for (const auto& [verb, _] : handlers) {
    if (!allow.empty()) allow += ", ";
    allow += std::string(bhttp::to_string(verb));
    if (verb == Verb::get && !handlers.contains(Verb::head)) allow += ", HEAD";
  }
  return allow;
}

void check_param(std::string_view name, ParamType type, std::string_view value) {
  if (type == ParamType::uuid && !is_uuid(value)) throw Problem::invalid_field(std::string(name), "must be a UUID");
  if (type == ParamType::integer && !parse_int64(value))
    throw Problem::invalid_field(std::string(name), "must be an integer");
}

// The handler behind the checks of what the router parsed: a malformed query string and a typed
// parameter of the wrong form are 400s, raised only once the caller is let in (the guard runs
// first, Router::add).
Handler with_checked_params(std::vector<std::pair<std::string, ParamType>> typed, Handler handler) {
  return [typed = std::move(typed), handler = std::move(handler)](Request& req) {
    if (req.malformed_query) throw Problem::bad_request("the query string has a malformed percent-escape");
    for (const auto& [name, type] : typed) check_param(name, type, req.param(name));
    return handler(req);
  };
}

}  // namespace

void Router::add(Verb method, std::string_view tmpl, Handler handler, std::string access, const Guard& guard) {
  if (tmpl.empty() || tmpl.front() != '/')
    throw std::invalid_argument("route must start with '/': " + std::string(tmpl));
  Node* node = root_.get();
  std::vector<std::pair<std::string, ParamType>> typed;
  std::size_t params = 0;
  for_each_segment(tmpl, [&](std::string_view seg) {
    if (seg.size() >= 2 && seg.front() == '{' && seg.back() == '}') {
      if (++params > kMaxParams)
        throw std::invalid_argument("more than " + std::to_string(kMaxParams) + " parameters in " + std::string(tmpl));
      auto [name, type] = parse_param(seg, tmpl);
      if (type != ParamType::text) typed.emplace_back(name, type);
      if (!node->param) {
        node->param = std::make_unique<Node>();
        node->param_name = name;
        node->param_type = type;
      } else if (node->param_name != name || node->param_type != type) {
        throw std::invalid_argument("conflicting parameter at " + std::string(tmpl));
      }
      node = node->param.get();
    } else {
      auto& child = node->literals[std::string(seg)];
      if (!child) child = std::make_unique<Node>();
      node = child.get();
    }
    return true;
  });
  handler = with_checked_params(std::move(typed), std::move(handler));
  if (guard) handler = guard(std::move(handler));
  if (!node->handlers.emplace(method, Node::Route{std::move(handler), static_cast<int>(routes_.size())}).second)
    throw std::invalid_argument("route registered twice: " + std::string(tmpl));
  routes_.push_back({method, std::string(tmpl), std::move(access)});
}

void Router::declare_access(const std::function<std::string(std::string_view path)>& rule) {
  for (auto& r : routes_)
    if (r.access.empty()) r.access = rule(r.path);
}

void Router::gate_body(Verb method, std::string path, BodyGate gate) {
  gates_[{method, std::move(path)}] = std::move(gate);
}

const Router::BodyGate* Router::body_gate(const Request& req) const {
  const auto it = gates_.find(std::pair<Verb, std::string_view>(req.method, req.path));
  return it == gates_.end() ? nullptr : &it->second;
}

std::size_t Router::largest_gated_body() const {
  std::size_t largest = 0;
  for (const auto& [_, gate] : gates_) largest = std::max(largest, gate.limit);
  return largest;
}

const Router::Node* Router::walk(std::string_view path, Params* params, bool& malformed) const {
  malformed = false;
  if (path.empty() || path.front() != '/') return nullptr;
  const Node* node = root_.get();
  std::string decoded;  // a segment with a percent-escape, decoded; the others are used as they are
  for_each_segment(path, [&](std::string_view raw) {
    std::string_view seg = raw;
    if (raw.find('%') != std::string_view::npos) {
      auto d = url_decode(raw, false);
      if (!d) {
        malformed = true;
        node = nullptr;
        return false;
      }
      decoded = std::move(*d);
      seg = decoded;
    }
    if (auto it = node->literals.find(seg); it != node->literals.end()) {
      node = it->second.get();
    } else if (node->param && !seg.empty()) {
      if (params) params->items[params->size++] = {node, raw};  // at most kMaxParams: add() saw to it
      node = node->param.get();
    } else {
      node = nullptr;
    }
    return node != nullptr;
  });
  return node;
}

namespace {

// The route of `method` among a node's, a HEAD falling back on the GET.
template <class Routes>
auto route_for(const Routes& routes, Verb method) {
  auto it = routes.find(method);
  if (it == routes.end() && method == Verb::head) it = routes.find(Verb::get);
  return it;
}

}  // namespace

const Handler& Router::resolve(Request& req) const {
  Params params;
  bool malformed = false;
  const Node* node = walk(req.path, &params, malformed);
  if (malformed) throw Problem::bad_request("the request path has a malformed percent-escape");
  if (!node || node->handlers.empty()) throw Problem::not_found("no route for " + req.path);

  const auto it = route_for(node->handlers, req.method);
  if (it == node->handlers.end())
    throw Problem(Status::method_not_allowed, "method-not-allowed", req.method_name + " is not allowed on " + req.path)
        .with_header(bhttp::field::allow, allow_header(node->handlers));

  for (std::size_t i = 0; i < params.size; ++i) {
    const auto& [owner, raw] = params.items[i];
    req.params[owner->param_name] = *url_decode(raw, false);  // walk() has seen that it decodes
  }
  req.route = it->second.index;
  return it->second.handler;
}

int Router::route_of(const Request& req) const {
  bool malformed = false;
  const Node* node = walk(req.path, nullptr, malformed);
  if (!node) return -1;
  const auto it = route_for(node->handlers, req.method);
  return it == node->handlers.end() ? -1 : it->second.index;
}

boost::asio::awaitable<Response> Router::operator()(Request& req) const {
  const Handler& handler = resolve(req);
  Response response = co_await handler(req);
  if (req.method == Verb::head) {
    response.headers.set(bhttp::field::content_length, std::to_string(response.body.size()));
    response.body.clear();
  }
  co_return response;
}

}  // namespace core::http
