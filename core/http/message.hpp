#pragma once
// The request and response a handler sees. Thin over Beast's types so handlers read plainly.
#include "core/http/query.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include <any>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <typeindex>
#include <unordered_map>

namespace core::http {

namespace bhttp = boost::beast::http;
using Status = bhttp::status;
using Verb = bhttp::verb;

// The body of a route whose gate streams it (Router::gate_body with `stream`): its handler reads
// it piece by piece as it arrives, so that no more than a piece is held at once.
class BodyStream {
 public:
  virtual ~BodyStream() = default;
  // The next piece of the body (what one read gave, at most tens of KiB), or nullopt once all of
  // it has been read. Throws Problem 413 once the body passes the route's limit, and Problem 400
  // when the client stops sending before its end (closed, or silent past the read timeout).
  virtual boost::asio::awaitable<std::optional<std::string>> next() = 0;
};

struct Request {
  Verb method = Verb::unknown;
  std::string method_name;  // as sent, for logs and 405s of unknown verbs
  std::string target;       // raw request target, path and query
  std::string path;         // target without the query string, still percent-encoded
  Query query;
  // The query string had a malformed percent-escape (`query` is then empty): the route answers
  // 400 once its guard has let the caller in (Router), so a refused caller learns nothing more.
  bool malformed_query = false;
  std::map<std::string, std::string, std::less<>> params;  // path parameters, decoded
  bhttp::fields headers;
  std::string body;
  // Set, instead of `body`, while the handler of a streamed route runs (Router::gate_body).
  BodyStream* body_stream = nullptr;
  std::string request_id;
  std::string remote_address;
  // The index in Router::routes() of the route that took the request, set by Router::resolve; -1
  // when none did (404, 405, an early 413): the label of its request metrics (core/metrics/requests.hpp).
  int route = -1;
  std::chrono::steady_clock::time_point received_at = std::chrono::steady_clock::now();

  std::string_view header(std::string_view name) const;
  std::string_view param(std::string_view name) const;  // throws std::out_of_range if absent

  // Typed slots for what middleware learns about the request (the authenticated caller, ...).
  template <class T>
  void set(T value) {
    attributes_[typeid(T)] = std::move(value);
  }
  template <class T>
  const T* get() const {
    const auto it = attributes_.find(typeid(T));
    return it == attributes_.end() ? nullptr : std::any_cast<T>(&it->second);
  }

 private:
  std::unordered_map<std::type_index, std::any> attributes_;
};

struct Response {
  Status status = Status::ok;
  bhttp::fields headers;
  std::string body;

  static Response json(const nlohmann::json& value, Status status = Status::ok);
  // A body that is JSON already (for example built by PostgreSQL): sent as is, not re-parsed.
  static Response json_text(std::string body, Status status = Status::ok);
  static Response text(std::string body, Status status = Status::ok,
                       std::string_view content_type = "text/plain; charset=utf-8");
  static Response empty(Status status = Status::no_content);
};

// Serialises JSON the one way every response does: compact, invalid UTF-8 replaced, not thrown.
std::string dump_json(const nlohmann::json& value);

using Handler = std::function<boost::asio::awaitable<Response>(Request&)>;

}  // namespace core::http
