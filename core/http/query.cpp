#include "core/http/query.hpp"

#include "core/util/strings.hpp"

namespace core::http {

std::optional<std::string_view> Query::get(std::string_view name) const {
  for (const auto& [k, v] : items_)
    if (k == name) return std::string_view(v);
  return std::nullopt;
}

std::vector<std::string_view> Query::all(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : items_)
    if (k == name) out.emplace_back(v);
  return out;
}

std::optional<Query> parse_query(std::string_view raw) {
  std::vector<std::pair<std::string, std::string>> items;
  if (raw.empty()) return Query{};
  for (auto piece : split(raw, '&')) {
    if (piece.empty()) continue;
    const auto eq = piece.find('=');
    auto name = url_decode(piece.substr(0, eq), true);
    auto value = url_decode(eq == std::string_view::npos ? std::string_view{} : piece.substr(eq + 1), true);
    if (!name || !value) return std::nullopt;
    items.emplace_back(std::move(*name), std::move(*value));
  }
  return Query{std::move(items)};
}

std::pair<std::string_view, std::string_view> split_target(std::string_view target) {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return {target, {}};
  return {target.substr(0, q), target.substr(q + 1)};
}

}  // namespace core::http
