#pragma once
#include <exception>
#include <stdexcept>
#include <string>

namespace core::db {

// The server reported an error for a statement (constraint violation, syntax, ...).
struct Error : std::runtime_error {
  Error(std::string sqlstate, const std::string& message)
      : std::runtime_error(message), sqlstate(std::move(sqlstate)) {}
  std::string sqlstate;  // e.g. "23505" unique_violation
  bool unique_violation() const { return sqlstate == "23505"; }
  bool foreign_key_violation() const { return sqlstate == "23503"; }
  bool check_violation() const { return sqlstate == "23514"; }
  bool deadlock() const { return sqlstate == "40P01"; }  // aborted to break one (core/db/deadlock.hpp)
};

// No connection could be made, or the connection was lost: the database is down or restarting.
struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A statement ran past its timeout (it was cancelled), or no pooled connection became free in time.
struct Timeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A request's database bound (core::async::Bounds) has passed: the pool's and a pipeline's answer.
inline Timeout request_bound_passed() { return Timeout("the request's time for the database ran out"); }
// The same for an item of a core::async::Batcher whose bound passed while it waited.
inline std::exception_ptr request_bound_passed_error() { return std::make_exception_ptr(request_bound_passed()); }

}  // namespace core::db
