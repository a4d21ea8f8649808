#include "core/http/problem.hpp"

#include "core/util/secrets.hpp"

namespace core::http {

Problem::Problem(Status status, std::string code, std::string detail, std::vector<FieldError> errors)
    : status_(status), code_(std::move(code)), detail_(std::move(detail)), errors_(std::move(errors)) {}

Problem Problem::bad_request(std::string detail, std::vector<FieldError> errors) {
  return {Status::bad_request, errors.empty() ? "bad-request" : "validation", std::move(detail), std::move(errors)};
}

Problem Problem::invalid_field(std::string field, std::string message) {
  auto detail = field + ": " + message;
  return bad_request(std::move(detail), {{std::move(field), std::move(message)}});
}

Problem Problem::unauthorized(std::string detail) { return {Status::unauthorized, "unauthorized", std::move(detail)}; }
Problem Problem::forbidden(std::string detail) { return {Status::forbidden, "forbidden", std::move(detail)}; }
Problem Problem::not_found(std::string detail) { return {Status::not_found, "not-found", std::move(detail)}; }
Problem Problem::conflict(std::string detail) { return {Status::conflict, "conflict", std::move(detail)}; }
Problem Problem::unavailable(std::string detail) {
  return {Status::service_unavailable, "unavailable", std::move(detail)};
}

Problem&& Problem::with_header(bhttp::field name, std::string value) && {
  headers_.emplace_back(name, std::move(value));
  return std::move(*this);
}

Problem&& Problem::with_member(std::string name, nlohmann::json value) && {
  members_.emplace_back(std::move(name), std::move(value));
  return std::move(*this);
}

nlohmann::json Problem::body(std::string_view request_id) const {
  nlohmann::json j = {
      {"type", "/problems/" + code_},
      {"title", std::string(bhttp::obsolete_reason(status_))},
      {"status", static_cast<unsigned>(status_)},
      // A detail may quote an upstream: masked and bounded (core/util/secrets.hpp), as every answer is.
      {"detail", core::secrets::quote(detail_)},
  };
  if (!request_id.empty()) j["request_id"] = request_id;
  if (!errors_.empty()) {
    auto& list = j["errors"] = nlohmann::json::array();
    for (const auto& e : errors_) list.push_back({{"field", e.field}, {"message", e.message}});
  }
  for (const auto& [name, value] : members_)
    if (!j.contains(name)) j[name] = value;  // the standard members keep their meaning
  return j;
}

Response Problem::to_response(std::string_view request_id) const {
  Response r = Response::json(body(request_id), status_);
  r.headers.set(bhttp::field::content_type, "application/problem+json");
  for (const auto& [name, value] : headers_) r.headers.set(name, value);
  return r;
}

}  // namespace core::http
