#include "core/http/message.hpp"

#include <stdexcept>

namespace core::http {

std::string_view Request::header(std::string_view name) const {
  const auto it = headers.find(name);
  return it == headers.end() ? std::string_view{} : std::string_view(it->value());
}

std::string_view Request::param(std::string_view name) const {
  const auto it = params.find(name);
  if (it == params.end()) throw std::out_of_range("no path parameter " + std::string(name));
  return it->second;
}

std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Response Response::json(const nlohmann::json& value, Status status) {
  Response r;
  r.status = status;
  r.headers.set(bhttp::field::content_type, "application/json");
  r.body = dump_json(value);
  return r;
}

Response Response::json_text(std::string body, Status status) {
  return text(std::move(body), status, "application/json");
}

Response Response::text(std::string body, Status status, std::string_view content_type) {
  Response r;
  r.status = status;
  r.headers.set(bhttp::field::content_type, content_type);
  r.body = std::move(body);
  return r;
}

Response Response::empty(Status status) {
  Response r;
  r.status = status;
  return r;
}

}  // namespace core::http
