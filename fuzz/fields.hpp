#pragma once
// For the targets whose input is several fields, one a line: the last field is the rest.
#include <string_view>

namespace fuzz {

// The next '\n'-ended field of `rest` (all of it when there is no '\n'); `rest` moves past it.
inline std::string_view next_field(std::string_view& rest) {
  const auto end = rest.find('\n');
  const auto field = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  return field;
}

}  // namespace fuzz
