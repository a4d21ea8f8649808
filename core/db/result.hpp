#pragma once
// Statement parameters (always bound, text format) and results.
//
//   auto rows = co_await pool.query(kSelectEntry, entry_id);
//   for (const auto& row : rows) out.push_back(row.get<std::string>("subject"));
#include "core/db/errors.hpp"

#include <libpq-fe.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace core::db {

using Param = std::optional<std::string>;  // nullopt is SQL NULL

inline Param to_param(std::nullptr_t) { return std::nullopt; }
inline Param to_param(std::string_view v) { return std::string(v); }
inline Param to_param(const std::string& v) { return v; }
inline Param to_param(std::string&& v) { return std::move(v); }
inline Param to_param(const char* v) { return std::string(v); }
inline Param to_param(bool v) { return v ? "true" : "false"; }
template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
Param to_param(T v) {
  return std::to_string(v);
}
Param to_param(double v);
Param to_param(const nlohmann::json& v);
// A text[] literal: {"a","b\"c"}; bind with $n::text[].
Param to_param(const std::vector<std::string>& v);
Param to_param(const std::set<std::string>& v);
// Number array literals, {1,2,3}: bind with $n::bigint[], $n::numeric[].
Param to_param(const std::vector<std::int64_t>& v);
Param to_param(const std::vector<double>& v);
template <class T>
Param to_param(const std::optional<T>& v) {
  return v ? to_param(*v) : std::nullopt;
}

template <class... Args>
std::vector<Param> params(Args&&... args) {
  std::vector<Param> out;
  out.reserve(sizeof...(Args));
  (out.push_back(to_param(std::forward<Args>(args))), ...);
  return out;
}

class Row {
 public:
  Row(const PGresult* r, int i) : r_(r), i_(i) {}

  int column(std::string_view name) const;  // throws std::out_of_range
  bool is_null(int col) const { return PQgetisnull(r_, i_, col) != 0; }
  bool is_null(std::string_view name) const { return is_null(column(name)); }
  std::string_view text(int col) const {
    return {PQgetvalue(r_, i_, col), static_cast<std::size_t>(PQgetlength(r_, i_, col))};
  }

  // T: std::string, std::int64_t, int, double, bool, nlohmann::json (json/jsonb columns),
  // std::vector<std::string> (text[]), or std::optional of any of these (NULL → nullopt).
  template <class T>
  T get(int col) const;
  template <class T>
  T get(std::string_view name) const {
    return get<T>(column(name));
  }

 private:
  const PGresult* r_;
  int i_;
};

class Result {
 public:
  Result() = default;
  explicit Result(PGresult* r) : res_(r, PQclear) {}

  int size() const { return res_ ? PQntuples(res_.get()) : 0; }
  bool empty() const { return size() == 0; }
  Row operator[](int i) const { return {res_.get(), i}; }
  Row front() const;              // throws std::out_of_range when empty
  std::int64_t affected() const;  // rows touched by INSERT/UPDATE/DELETE

  struct iterator {
    const PGresult* r;
    int i;
    Row operator*() const { return {r, i}; }
    iterator& operator++() {
      ++i;
      return *this;
    }
    bool operator==(const iterator&) const = default;
  };
  iterator begin() const { return {res_.get(), 0}; }
  iterator end() const { return {res_.get(), size()}; }

 private:
  std::shared_ptr<PGresult> res_;
};

namespace detail {
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
T parse_value(std::string_view text);
}  // namespace detail

template <class T>
T Row::get(int col) const {
  if constexpr (detail::is_optional<T>::value) {
    if (is_null(col)) return std::nullopt;
    return get<typename T::value_type>(col);
  } else {
    if (is_null(col)) throw std::runtime_error("unexpected NULL in column " + std::string(PQfname(r_, col)));
    return detail::parse_value<T>(text(col));
  }
}

}  // namespace core::db
