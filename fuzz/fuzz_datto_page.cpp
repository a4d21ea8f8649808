// A page of Datto BCDR's device or asset list (ops_console/backup/assets.hpp): what is accepted has
// an `items` array and the page count it says; each object item becomes an asset row whose key and
// name are strings, whose kind is "agent" or "share", and whose backups each have a status of
// "succeeded" or "failed", a sourceKey of serial/key/timestamp, and an error cut to 2,048 bytes.
#include "ops_console/backup/assets.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using nlohmann::json;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto page = ops_console::backup::parse_datto_page(text);
  const auto whole = json::parse(text, nullptr, false);
  const bool shaped = whole.is_object() && whole.contains("items") && whole["items"].is_array();
  if (page.has_value() != shaped) std::abort();
  if (!page) return 0;
  if (page->items != whole["items"]) std::abort();
  const std::string serial = "S1";
  for (const auto& item : page->items) {
    if (!item.is_object()) continue;
    const json one = ops_console::backup::backup_asset_row(serial, item);
    const json& row = one.at("asset");
    if (!row.at("key").is_string() || !row.at("name").is_string()) std::abort();
    if (row.at("kind") != "agent" && row.at("kind") != "share") std::abort();
    const std::string prefix = serial + "/" + row["key"].get<std::string>() + "/";
    for (const auto& r : one.at("results")) {
      if (r.at("status") != "succeeded" && r.at("status") != "failed") std::abort();
      const auto& key = r.at("sourceKey").get_ref<const std::string&>();
      if (key != prefix + r.at("finishedAt").get<std::string>()) std::abort();
      if (r.contains("error") && r["error"].get_ref<const std::string&>().size() > 2048 + 8) std::abort();
    }
    if (row.contains("lastBackupStatus") && row["lastBackupStatus"] != "succeeded" &&
        row["lastBackupStatus"] != "failed")
      std::abort();
  }
  return 0;
}
