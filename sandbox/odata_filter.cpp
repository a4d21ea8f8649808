#include "sandbox/odata_filter.hpp"

#include "core/util/strings.hpp"

namespace sandbox {

namespace {

template <class T>
bool compare(const std::string& op, const T& a, const T& b) {
  if (op == "eq") return a == b;
  if (op == "ne") return a != b;
  if (op == "lt") return a < b;
  if (op == "le") return a <= b;
  if (op == "gt") return a > b;
  if (op == "ge") return a >= b;
  throw FilterError{"unsupported operator '" + op + "'"};
}

}  // namespace

std::vector<FilterClause> parse_filter(std::string_view f) {
  std::vector<std::string> words;
  std::vector<bool> quoted;
  for (std::size_t i = 0; i < f.size();) {
    if (f[i] == ' ') {
      ++i;
      continue;
    }
    std::string word;
    if (f[i] == '\'') {
      for (++i;; ++i) {
        if (i >= f.size()) throw FilterError{"unterminated string literal"};
        if (f[i] == '\'') {
          if (i + 1 < f.size() && f[i + 1] == '\'') {
            word += '\'';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        word += f[i];
      }
      quoted.push_back(true);
    } else {
      while (i < f.size() && f[i] != ' ') word += f[i++];
      quoted.push_back(false);
    }
    words.push_back(std::move(word));
  }
  std::vector<FilterClause> clauses;
  for (std::size_t i = 0; i < words.size(); i += 4) {
    if (i + 3 > words.size()) throw FilterError{"incomplete clause"};
    clauses.push_back({words[i], words[i + 1], words[i + 2], quoted[i + 2]});
    if (i + 3 < words.size() && words[i + 3] != "and") throw FilterError{"expected 'and' after a clause"};
    if (i + 3 == words.size() - 1) throw FilterError{"dangling 'and'"};
  }
  if (clauses.empty()) throw FilterError{"empty filter"};
  return clauses;
}

std::function<bool(const FakeMessage&)> compile(const FilterClause& c) {
  if (c.property == "isRead") {
    if (c.quoted || (c.literal != "true" && c.literal != "false") || (c.op != "eq" && c.op != "ne"))
      throw FilterError{"isRead compares with eq or ne to true or false"};
    const bool value = c.literal == "true";
    return [op = c.op, value](const FakeMessage& m) { return compare(op, m.is_read, value); };
  }
  if (c.property == "receivedDateTime") {
    const auto t = core::parse_rfc3339(c.literal);
    if (c.quoted || !t) throw FilterError{"receivedDateTime compares with a DateTimeOffset literal"};
    return [op = c.op, t = *t](const FakeMessage& m) { return compare(op, m.received_at, t); };
  }
  if (c.property == "from/emailAddress/address") {
    if (!c.quoted || (c.op != "eq" && c.op != "ne"))
      throw FilterError{"from/emailAddress/address compares with eq or ne to a string"};
    return [op = c.op, value = core::to_lower(c.literal)](const FakeMessage& m) {
      return compare(op, core::to_lower(m.from_address), value);
    };
  }
  if (c.property == "internetMessageId") {
    if (!c.quoted || (c.op != "eq" && c.op != "ne"))
      throw FilterError{"internetMessageId compares with eq or ne to a string"};
    return [op = c.op, value = c.literal](const FakeMessage& m) { return compare(op, m.internet_message_id, value); };
  }
  if (c.property == "subject") {
    if (!c.quoted || (c.op != "eq" && c.op != "ne")) throw FilterError{"subject compares with eq or ne to a string"};
    return [op = c.op, value = core::to_lower(c.literal)](const FakeMessage& m) {
      return compare(op, core::to_lower(m.subject), value);
    };
  }
  throw FilterError{"Could not find a property named '" + c.property + "' on type 'microsoft.graph.message'."};
}

}  // namespace sandbox
