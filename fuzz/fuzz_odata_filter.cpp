// The Graph fake's $filter parser (sandbox/odata_filter.hpp): never crashes; what it parses
// prints back to a filter that parses to the same clauses; every clause either compiles to a test
// that runs on a message or is refused with FilterError.
#include "sandbox/odata_filter.hpp"

#include <cstdint>
#include <cstdlib>

namespace {

// A word as the parser reads it back: quoted when it is empty, has a space or starts with a quote.
std::string word(const std::string& w, bool force_quotes) {
  if (!force_quotes && !w.empty() && w.find(' ') == std::string::npos && w.front() != '\'') return w;
  std::string out = "'";
  for (char c : w) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string print(const std::vector<sandbox::FilterClause>& clauses) {
  std::string out;
  for (const auto& c : clauses) {
    if (!out.empty()) out += " and ";
    out += word(c.property, false) + " " + word(c.op, false) + " " + word(c.literal, c.quoted);
  }
  return out;
}

bool same(const sandbox::FilterClause& a, const sandbox::FilterClause& b) {
  return a.property == b.property && a.op == b.op && a.literal == b.literal && a.quoted == b.quoted;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<sandbox::FilterClause> clauses;
  try {
    clauses = sandbox::parse_filter(text);
  } catch (const sandbox::FilterError&) {
    return 0;
  }
  if (clauses.empty()) std::abort();  // an empty filter is an error, not zero clauses

  const auto again = sandbox::parse_filter(print(clauses));
  if (again.size() != clauses.size()) std::abort();
  for (std::size_t i = 0; i < clauses.size(); ++i)
    if (!same(again[i], clauses[i])) std::abort();

  sandbox::FakeMessage message;
  message.from_address = "News@Example.com";
  message.received_at = core::parse_rfc3339("2026-11-01T08:30:00Z").value_or(core::Timestamp{});
  for (const auto& clause : clauses) {
    try {
      (void)sandbox::compile(clause)(message);
    } catch (const sandbox::FilterError&) {
    }
  }
  return 0;
}
