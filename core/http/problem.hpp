#pragma once
// RFC 9457 problem details. Handlers throw a Problem; the problems middleware renders it as
//   {"type":"/problems/validation","title":"Bad Request","status":400,
//    "detail":"…","request_id":"…","errors":[{"field":"limit","message":"…"}]}
// with Content-Type application/problem+json. Every error response of the project has this body.
#include "core/http/message.hpp"

#include <exception>
#include <string>
#include <vector>

namespace core::http {

struct FieldError {
  std::string field;
  std::string message;
  bool operator==(const FieldError&) const = default;
};

class Problem : public std::exception {
 public:
  // `code` names the kind of problem (it becomes the type URI /problems/<code>);
  // `detail` is a sentence for the caller; it never carries secrets.
  Problem(Status status, std::string code, std::string detail, std::vector<FieldError> errors = {});

  static Problem bad_request(std::string detail, std::vector<FieldError> errors = {});
  static Problem invalid_field(std::string field, std::string message);
  static Problem unauthorized(std::string detail = "authentication required");
  static Problem forbidden(std::string detail = "you do not have access to this resource");
  static Problem not_found(std::string detail = "no such resource");
  static Problem conflict(std::string detail);
  static Problem unavailable(std::string detail);

  Problem&& with_header(bhttp::field name, std::string value) &&;
  // An extension member of the body (RFC 9457 section 3.2), e.g. the estimate a refusal names.
  Problem&& with_member(std::string name, nlohmann::json value) &&;

  Status status() const { return status_; }
  const std::string& code() const { return code_; }
  const std::string& detail() const { return detail_; }
  const std::vector<FieldError>& errors() const { return errors_; }
  const char* what() const noexcept override { return detail_.c_str(); }

  nlohmann::json body(std::string_view request_id) const;
  Response to_response(std::string_view request_id) const;

 private:
  Status status_;
  std::string code_;
  std::string detail_;
  std::vector<FieldError> errors_;
  std::vector<std::pair<bhttp::field, std::string>> headers_;
  std::vector<std::pair<std::string, nlohmann::json>> members_;
};

}  // namespace core::http
