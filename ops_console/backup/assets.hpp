#pragma once
// What Datto BCDR answers, read without I/O (the client and the sync, ./datto.hpp and ./sync.hpp,
// use these; fuzz/fuzz_datto_page.cpp fuzzes them): a list page's envelope, and one asset of a
// /device/{serial}/asset page as the copy stores it.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace ops_console::backup {

// A page {pagination: {totalPages}, items: [...]}: its items and its page count (0 when absent or
// not an integer: the last page). Nothing when the body is not an object with an `items` array.
struct DattoPage {
  nlohmann::json items;
  int total_pages = 0;
};
std::optional<DattoPage> parse_datto_page(std::string_view body);

// One asset of a /device/{serial}/asset page as the copy stores it: its row, and its backups as
// backup_results rows ({sourceKey, status, finishedAt, error}). A backup still under way is not a
// result; the row's oldestPendingBackupAt names the oldest such one.
nlohmann::json backup_asset_row(const std::string& serial, const nlohmann::json& asset);

}  // namespace ops_console::backup
