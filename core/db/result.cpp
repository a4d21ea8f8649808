#include "core/db/result.hpp"

#include "core/util/strings.hpp"

#include <charconv>
#include <stdexcept>

namespace core::db {

Param to_param(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

Param to_param(const nlohmann::json& v) { return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

namespace {

// {a,b,c} of the elements as `element` writes them.
template <class Range, class Element>
std::string array_literal(const Range& values, Element element) {
  std::string out = "{";
  for (const auto& v : values) {
    if (out.size() > 1) out += ',';
    out += element(v);
  }
  return out + "}";
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

}  // namespace

Param to_param(const std::vector<std::string>& v) { return array_literal(v, quoted); }
Param to_param(const std::set<std::string>& v) { return array_literal(v, quoted); }
Param to_param(const std::vector<std::int64_t>& v) {
  return array_literal(v, [](std::int64_t n) { return std::to_string(n); });
}
Param to_param(const std::vector<double>& v) {
  return array_literal(v, [](double d) { return *to_param(d); });
}

int Row::column(std::string_view name) const {
  const int n = PQnfields(r_);
  for (int c = 0; c < n; ++c)
    if (name == PQfname(r_, c)) return c;
  throw std::out_of_range("no column " + std::string(name) + " in result");
}

Row Result::front() const {
  if (empty()) throw std::out_of_range("empty result");
  return (*this)[0];
}

std::int64_t Result::affected() const {
  if (!res_) return 0;
  return parse_int64(PQcmdTuples(res_.get())).value_or(0);
}

namespace detail {

template <>
std::string parse_value<std::string>(std::string_view t) {
  return std::string(t);
}

template <>
std::int64_t parse_value<std::int64_t>(std::string_view t) {
  if (auto v = parse_int64(t)) return *v;
  throw std::runtime_error("not an integer: " + std::string(t));
}

template <>
int parse_value<int>(std::string_view t) {
  return static_cast<int>(parse_value<std::int64_t>(t));
}

template <>
double parse_value<double>(std::string_view t) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc{} || ptr != t.data() + t.size()) throw std::runtime_error("not a number: " + std::string(t));
  return v;
}

template <>
bool parse_value<bool>(std::string_view t) {
  return t == "t" || t == "true";
}

template <>
nlohmann::json parse_value<nlohmann::json>(std::string_view t) {
  return nlohmann::json::parse(t);
}

template <>
std::vector<std::string> parse_value<std::vector<std::string>>(std::string_view t) {
  // PostgreSQL's text[] output: {a,"b c","d\"e",NULL}; NULL elements are not expected here.
  std::vector<std::string> out;
  if (t.size() < 2 || t.front() != '{' || t.back() != '}') throw std::runtime_error("not an array");
  std::size_t i = 1;
  const std::size_t end = t.size() - 1;
  while (i < end) {
    std::string item;
    if (t[i] == '"') {
      for (++i; i < end && t[i] != '"'; ++i) {
        if (t[i] == '\\' && i + 1 < end) ++i;
        item += t[i];
      }
      ++i;  // closing quote
    } else {
      while (i < end && t[i] != ',') item += t[i++];
    }
    out.push_back(std::move(item));
    if (i < end && t[i] == ',') ++i;
  }
  return out;
}

}  // namespace detail
}  // namespace core::db
