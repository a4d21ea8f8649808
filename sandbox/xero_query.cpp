#include "sandbox/xero_query.hpp"

#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "sandbox/xero_seed.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace sandbox::xero {

using nlohmann::json;

namespace {

struct Literal {
  enum class Type { string, number, boolean, null, guid, date } type = Type::null;
  std::string text;
  double number = 0;
  bool flag = false;
  std::int64_t ms = 0;
};

struct Token {
  enum class Kind { ident, string, number, op, lparen, rparen, comma, dot, end } kind = Kind::end;
  std::string text;
};

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Token::Kind::ident, std::string(s.substr(i, j - i))});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      std::size_t j = i + 1;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      out.push_back({Token::Kind::number, std::string(s.substr(i, j - i))});
      i = j;
    } else if (c == '"' || c == '\'') {
      std::string text;
      std::size_t j = i + 1;
      for (; j < s.size() && s[j] != c; ++j) {
        if (s[j] == '\\' && j + 1 < s.size()) ++j;
        text += s[j];
      }
      if (j >= s.size()) throw QueryParseError{"Unterminated string literal"};
      out.push_back({Token::Kind::string, std::move(text)});
      i = j + 1;
    } else if (c == '(' || c == ')' || c == ',' || c == '.') {
      out.push_back({c == '('   ? Token::Kind::lparen
                     : c == ')' ? Token::Kind::rparen
                     : c == ',' ? Token::Kind::comma
                                : Token::Kind::dot,
                     std::string(1, c)});
      ++i;
    } else {
      static const char* kOps[] = {"==", "!=", "<>", ">=", "<=", "&&", "||", ">", "<", "=", "!"};
      const char* found = nullptr;
      for (const char* op : kOps)
        if (s.substr(i).starts_with(op)) {
          found = op;
          break;
        }
      if (!found) throw QueryParseError{"Syntax error '" + std::string(1, c) + "'"};
      out.push_back({Token::Kind::op, found});
      i += std::strlen(found);
    }
  }
  out.push_back({Token::Kind::end, ""});
  return out;
}

std::string canonical_relation(const std::string& op) {
  if (op == "=") return "==";
  if (op == "<>") return "!=";
  return op;
}

bool is_relation(const Token& t) {
  return t.kind == Token::Kind::op && t.text != "&&" && t.text != "||" && t.text != "!";
}

template <class T>
bool holds(const std::string& relation, const T& a, const T& b) {
  if (relation == "==") return a == b;
  if (relation == "!=") return a != b;
  if (relation == "<") return a < b;
  if (relation == "<=") return a <= b;
  if (relation == ">") return a > b;
  if (relation == ">=") return a >= b;
  return false;
}

}  // namespace

struct Where::Node {
  enum class Op { any, all, negate, compare, call } op = Op::compare;
  std::vector<Node> children;
  std::vector<std::string> path;
  std::string transform;  // "", "lower", "upper"
  std::string relation;   // ==, !=, <, <=, >, >=; or contains, startswith, endswith
  Literal literal;
};

namespace {

class Parser {
 public:
  Parser(std::string_view text, std::string_view entity, const std::set<std::string>& fields)
      : tokens_(tokenize(text)), entity_(entity), fields_(fields) {}

  Where::Node parse() {
    auto node = disjunction();
    if (peek().kind != Token::Kind::end) throw QueryParseError{"Syntax error near '" + peek().text + "'"};
    return node;
  }

 private:
  using Node = Where::Node;
  const Token& peek() const { return tokens_[at_]; }
  const Token& next() { return tokens_[at_ < tokens_.size() - 1 ? at_++ : at_]; }
  bool keyword(std::string_view word, std::string_view symbol) {
    const auto& t = peek();
    if ((t.kind == Token::Kind::ident && core::iequals(t.text, word)) ||
        (t.kind == Token::Kind::op && t.text == symbol)) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(Token::Kind kind, std::string_view what) {
    if (next().kind != kind) throw QueryParseError{"'" + std::string(what) + "' expected"};
  }

  Node disjunction() {
    Node left = conjunction();
    if (peek().kind == Token::Kind::end) return left;
    Node any{.op = Node::Op::any};
    any.children.push_back(std::move(left));
    while (keyword("OR", "||")) any.children.push_back(conjunction());
    return any.children.size() == 1 ? std::move(any.children.front()) : std::move(any);
  }
  Node conjunction() {
    Node all{.op = Node::Op::all};
    all.children.push_back(unary());
    while (keyword("AND", "&&")) all.children.push_back(unary());
    return all.children.size() == 1 ? std::move(all.children.front()) : std::move(all);
  }
  Node unary() {
    if (keyword("NOT", "!")) {
      Node n{.op = Node::Op::negate};
      n.children.push_back(unary());
      return n;
    }
    if (peek().kind == Token::Kind::lparen) {
      ++at_;
      Node inner = disjunction();
      expect(Token::Kind::rparen, ")");
      return inner;
    }
    return comparison();
  }

  Node comparison() {
    Node n;
    const Token& first = next();
    if (first.kind != Token::Kind::ident) throw QueryParseError{"Expression expected near '" + first.text + "'"};
    const auto known = std::find_if(fields_.begin(), fields_.end(),
                                    [&](const std::string& f) { return core::iequals(f, first.text); });
    if (known == fields_.end())
      throw QueryParseError{"No property or field '" + first.text + "' exists in type '" + entity_ + "'"};
    n.path.push_back(*known);
    while (peek().kind == Token::Kind::dot) {
      ++at_;
      const Token& name = next();
      if (name.kind != Token::Kind::ident) throw QueryParseError{"Identifier expected"};
      if (peek().kind != Token::Kind::lparen) {
        if (!n.transform.empty())
          throw QueryParseError{"No property or field '" + name.text + "' exists in type 'String'"};
        n.path.push_back(name.text);
        continue;
      }
      ++at_;
      const std::string method = core::to_lower(name.text);
      if (method == "tolower" || method == "toupper") {
        expect(Token::Kind::rparen, ")");
        n.transform = method == "tolower" ? "lower" : "upper";
        continue;
      }
      if (method != "contains" && method != "startswith" && method != "endswith")
        throw QueryParseError{"No applicable method '" + name.text + "' exists in type 'String'"};
      n.op = Node::Op::call;
      n.relation = method;
      n.literal = literal();
      if (n.literal.type != Literal::Type::string)
        throw QueryParseError{"No applicable method '" + name.text + "' exists for these arguments"};
      expect(Token::Kind::rparen, ")");
      return n;
    }
    if (!is_relation(peek())) {  // a boolean field on its own: IsCustomer
      n.relation = "==";
      n.literal = Literal{.type = Literal::Type::boolean, .flag = true};
      return n;
    }
    n.relation = canonical_relation(next().text);
    n.literal = literal();
    return n;
  }

  Literal literal() {
    const Token t = next();
    if (t.kind == Token::Kind::string) return {.type = Literal::Type::string, .text = t.text};
    if (t.kind == Token::Kind::number) {
      try {
        return {.type = Literal::Type::number, .number = std::stod(t.text)};
      } catch (const std::exception&) {
        throw QueryParseError{"Invalid number '" + t.text + "'"};
      }
    }
    if (t.kind != Token::Kind::ident) throw QueryParseError{"Expression expected near '" + t.text + "'"};
    const std::string word = core::to_lower(t.text);
    if (word == "true" || word == "false") return {.type = Literal::Type::boolean, .flag = word == "true"};
    if (word == "null") return {.type = Literal::Type::null};
    if (word == "guid") {
      expect(Token::Kind::lparen, "(");
      const Token value = next();
      if (value.kind != Token::Kind::string || !core::is_uuid(value.text))
        throw QueryParseError{"Guid should contain 32 digits with 4 dashes (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)."};
      expect(Token::Kind::rparen, ")");
      return {.type = Literal::Type::guid, .text = value.text};
    }
    if (word == "datetime") {
      expect(Token::Kind::lparen, "(");
      std::vector<int> parts;
      while (true) {
        const Token part = next();
        const auto v = part.kind == Token::Kind::number ? core::parse_int64(part.text) : std::nullopt;
        if (!v) throw QueryParseError{"DateTime expects integers: DateTime(year, month, day[, hour, minute, second])"};
        parts.push_back(static_cast<int>(*v));
        if (peek().kind == Token::Kind::comma) {
          ++at_;
          continue;
        }
        expect(Token::Kind::rparen, ")");
        break;
      }
      if (parts.size() != 3 && parts.size() != 6) throw QueryParseError{"No matching constructor in type 'DateTime'"};
      const std::chrono::year_month_day ymd{std::chrono::year(parts[0]), std::chrono::month(parts[1]),
                                            std::chrono::day(parts[2])};
      if (!ymd.ok()) throw QueryParseError{"Year, Month, and Day parameters describe an un-representable DateTime."};
      auto t0 = std::chrono::sys_days(ymd) + std::chrono::hours(parts.size() == 6 ? parts[3] : 0) +
                std::chrono::minutes(parts.size() == 6 ? parts[4] : 0) +
                std::chrono::seconds(parts.size() == 6 ? parts[5] : 0);
      return {.type = Literal::Type::date,
              .ms = std::chrono::duration_cast<std::chrono::milliseconds>(t0.time_since_epoch()).count()};
    }
    throw QueryParseError{"Expression expected near '" + t.text + "'"};
  }

  std::vector<Token> tokens_;
  std::size_t at_ = 0;
  std::string entity_;
  const std::set<std::string>& fields_;
};

const json* resolve(const json& row, const std::vector<std::string>& path) {
  const json* cur = &row;
  for (const auto& segment : path) {
    cur = find_member(*cur, segment);
    if (!cur) return nullptr;
  }
  return cur;
}

std::string transformed(std::string s, const std::string& transform) {
  if (transform == "lower") return core::to_lower(s);
  if (transform == "upper")
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool evaluate(const Where::Node& n, const json& row) {
  using Op = Where::Node::Op;
  switch (n.op) {
    case Op::any:
      return std::any_of(n.children.begin(), n.children.end(), [&](const auto& c) { return evaluate(c, row); });
    case Op::all:
      return std::all_of(n.children.begin(), n.children.end(), [&](const auto& c) { return evaluate(c, row); });
    case Op::negate:
      return !evaluate(n.children.front(), row);
    case Op::call: {
      const json* v = resolve(row, n.path);
      if (!v || !v->is_string()) return false;
      const std::string s = transformed(v->get<std::string>(), n.transform);
      if (n.relation == "contains") return s.find(n.literal.text) != std::string::npos;
      if (n.relation == "startswith") return s.starts_with(n.literal.text);
      return s.ends_with(n.literal.text);
    }
    case Op::compare:
      break;
  }
  const json* v = resolve(row, n.path);
  const bool missing = !v || v->is_null();
  using T = Literal::Type;
  if (n.literal.type == T::null) return n.relation == "==" ? missing : n.relation == "!=" ? !missing : false;
  if (missing) return n.relation == "!=";
  switch (n.literal.type) {
    case T::date: {
      const auto ms = v->is_string() ? parse_json_date(v->get<std::string>()) : std::nullopt;
      return ms && holds(n.relation, *ms, n.literal.ms);
    }
    case T::number:
      return v->is_number() && holds(n.relation, v->get<double>(), n.literal.number);
    case T::boolean:
      return v->is_boolean() && holds(n.relation, v->get<bool>(), n.literal.flag);
    case T::guid:
      return v->is_string() && holds(n.relation, core::to_lower(v->get<std::string>()), core::to_lower(n.literal.text));
    case T::string:
      return v->is_string() && holds(n.relation, transformed(v->get<std::string>(), n.transform), n.literal.text);
    case T::null:
      break;
  }
  return false;
}

// -1, 0, 1: missing first, then numbers, dates (by moment), strings, booleans by value.
int compare_values(const json* a, const json* b) {
  const bool ma = !a || a->is_null(), mb = !b || b->is_null();
  if (ma || mb) return ma == mb ? 0 : ma ? -1 : 1;
  if (a->is_number() && b->is_number())
    return a->get<double>() < b->get<double>() ? -1 : a->get<double>() > b->get<double>();
  if (a->is_string() && b->is_string()) {
    const auto da = parse_json_date(a->get<std::string>()), db = parse_json_date(b->get<std::string>());
    if (da && db) return *da < *db ? -1 : *da > *db;
    const int c = a->get<std::string>().compare(b->get<std::string>());
    return c < 0 ? -1 : c > 0;
  }
  if (a->is_boolean() && b->is_boolean()) return static_cast<int>(a->get<bool>()) - static_cast<int>(b->get<bool>());
  return 0;
}

std::optional<std::int64_t> parse_http_date(std::string_view value) {  // "Fri, 06 Feb 2026 20:17:43 GMT"
  char weekday[4] = {}, month[4] = {}, zone[4] = {};
  int day = 0, year = 0, h = 0, m = 0, s = 0;
  const std::string text(value);
  if (std::sscanf(text.c_str(), "%3s, %d %3s %d %d:%d:%d %3s", weekday, &day, month, &year, &h, &m, &s, zone) != 8)
    return std::nullopt;
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int mon = 0;
  for (int i = 0; i < 12; ++i)
    if (core::iequals(month, kMonths[i])) mon = i + 1;
  if (!mon || std::string_view(zone) != "GMT" || h > 23 || m > 59 || s > 59) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(year), std::chrono::month(mon), std::chrono::day(day)};
  if (!ymd.ok()) return std::nullopt;
  const auto t = std::chrono::sys_days(ymd) + std::chrono::hours(h) + std::chrono::minutes(m) + std::chrono::seconds(s);
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

Where::Where() = default;
Where::~Where() = default;
Where::Where(Where&&) noexcept = default;
Where& Where::operator=(Where&&) noexcept = default;

bool Where::matches(const json& row) const { return !root_ || evaluate(*root_, row); }

Where parse_where(std::string_view text, std::string_view entity, const std::set<std::string>& fields) {
  Where w;
  if (core::trim(text).empty()) return w;
  w.root_ = std::make_unique<Where::Node>(Parser(text, entity, fields).parse());
  return w;
}

std::vector<OrderKey> parse_order(std::string_view text, std::string_view entity, const std::set<std::string>& fields) {
  std::vector<OrderKey> keys;
  for (auto piece : core::split(text, ',')) {
    piece = core::trim(piece);
    if (piece.empty()) continue;
    const auto space = piece.find(' ');
    const std::string name(piece.substr(0, space));
    const std::string direction(space == std::string_view::npos ? "" : core::trim(piece.substr(space + 1)));
    const auto known =
        std::find_if(fields.begin(), fields.end(), [&](const std::string& f) { return core::iequals(f, name); });
    if (known == fields.end())
      throw QueryParseError{"No property or field '" + name + "' exists in type '" + std::string(entity) + "'"};
    if (!direction.empty() && !core::iequals(direction, "ASC") && !core::iequals(direction, "DESC"))
      throw QueryParseError{"Syntax error in order '" + std::string(piece) + "'"};
    keys.push_back({*known, core::iequals(direction, "DESC")});
  }
  return keys;
}

void sort_rows(std::vector<const json*>& rows, const std::vector<OrderKey>& keys) {
  if (keys.empty()) return;
  std::stable_sort(rows.begin(), rows.end(), [&](const json* a, const json* b) {
    for (const auto& k : keys) {
      const int c = compare_values(find_member(*a, k.field), find_member(*b, k.field));
      if (c != 0) return k.descending ? c > 0 : c < 0;
    }
    return false;
  });
}

std::optional<std::int64_t> parse_if_modified_since(std::string_view value) {
  value = core::trim(value);
  if (value.empty()) return std::nullopt;
  std::string text(value);
  if (text.size() == 10) text += "T00:00:00";  // a date alone
  auto t = core::parse_rfc3339(text);
  if (!t) t = core::parse_rfc3339(text + "Z");  // no offset: UTC
  if (t) return to_ms(*t);
  return parse_http_date(value);
}

const json* find_member(const json& row, std::string_view name) {
  if (!row.is_object()) return nullptr;
  if (const auto it = row.find(std::string(name)); it != row.end()) return &*it;
  for (const auto& [key, value] : row.items())
    if (core::iequals(key, name)) return &value;
  return nullptr;
}

}  // namespace sandbox::xero
