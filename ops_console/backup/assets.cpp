#include "ops_console/backup/assets.hpp"

#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

#include <cstdint>
#include <limits>

namespace ops_console::backup {

using nlohmann::json;

namespace {

std::optional<std::string> datto_text_of(const json& v, const char* key) {
  if (v.is_object() && v.contains(key) && v[key].is_string() && !v[key].get<std::string>().empty())
    return v[key].get<std::string>();
  return std::nullopt;
}

// Datto's backup.status: "success" for a good one (unverified wording: any case, and "succeeded" or
// "successful" too); an empty or missing status is a backup still under way (not counted).
std::optional<std::string> datto_backup_outcome(const json& backup) {
  const auto status = datto_text_of(backup, "status");
  if (!status) return std::nullopt;
  const auto s = core::to_lower(*status);
  if (s == "success" || s == "succeeded" || s == "successful") return "succeeded";
  if (s == "in progress" || s == "inprogress" || s == "running" || s == "queued") return std::nullopt;
  return "failed";
}

// An instant as Datto writes it, seconds since the epoch (0: never): a positive number, whole or
// not, within a 64-bit integer. A float past that range was converted anyway (undefined
// behaviour, found by fuzz_datto_page; fuzz/corpus/datto_page/assets.json).
std::optional<std::int64_t> datto_epoch_seconds(const json& v) {
  if (v.is_number_unsigned()) {
    const auto n = v.get<std::uint64_t>();
    if (n > 0 && n <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return static_cast<std::int64_t>(n);
    return std::nullopt;
  }
  if (v.is_number_integer()) {
    const auto n = v.get<std::int64_t>();
    return n > 0 ? std::optional(n) : std::nullopt;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^63 is exactly representable; anything below it converts.
    if (d >= 1 && d < 9223372036854775808.0) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

}  // namespace

std::optional<DattoPage> parse_datto_page(std::string_view body) {
  auto parsed = json::parse(body, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("items") || !parsed["items"].is_array()) return std::nullopt;
  DattoPage page{.items = std::move(parsed["items"])};
  if (parsed.contains("pagination") && parsed["pagination"].is_object()) {
    const auto& pagination = parsed["pagination"];
    if (pagination.contains("totalPages") && pagination["totalPages"].is_number_integer())
      page.total_pages = pagination["totalPages"].get<int>();
  }
  return page;
}

json backup_asset_row(const std::string& serial, const json& asset) {
  json row = json::object();
  const auto name = datto_text_of(asset, "name");
  const auto volume = datto_text_of(asset, "volume");
  row["key"] = volume ? *volume : name.value_or("");
  row["name"] = name.value_or(volume.value_or(""));
  const auto type = datto_text_of(asset, "type");
  row["kind"] = type ? (core::to_lower(*type) == "share" ? "share" : "agent") : (volume ? "agent" : "share");
  for (const char* key : {"os", "fqdn", "localIp", "agentVersion"})
    if (const auto v = datto_text_of(asset, key)) row[key] = *v;
  for (const char* key : {"isPaused", "isArchived", "lastScreenshotAttemptStatus"})
    if (asset.contains(key) && asset[key].is_boolean()) row[key] = asset[key];
  for (const char* key : {"lastSnapshot", "latestOffsite", "lastScreenshotAttempt"})
    if (asset.contains(key))
      if (const auto at = datto_epoch_seconds(asset[key])) row[key] = *at;

  json results = json::array();
  std::string last_at, last_good_at, pending_at;
  if (asset.contains("backups") && asset["backups"].is_array())
    for (const auto& b : asset["backups"]) {
      const auto at = datto_text_of(b, "timestamp");
      if (!at || !b.contains("backup")) continue;
      const auto outcome = datto_backup_outcome(b["backup"]);
      if (!outcome) {  // under way: not counted yet, but the next runs must look back to it
        if (pending_at.empty() || *at < pending_at) {
          pending_at = *at;
          row["oldestPendingBackupAt"] = *at;
        }
        continue;
      }
      json r = {{"sourceKey", serial + "/" + row["key"].get<std::string>() + "/" + *at},
                {"asset", row["name"]},
                {"status", *outcome},
                {"finishedAt", *at}};
      // Datto's words about a failure: masked and cut before they are stored.
      if (const auto error = datto_text_of(b["backup"], "errorMessage"))
        r["error"] = core::secrets::quote(*error, 2048);
      // Datto writes every timestamp with the offset +00:00, so the text orders as the time does.
      if (last_at.empty() || *at > last_at) {
        last_at = *at;
        row["lastBackupAt"] = *at;
        row["lastBackupStatus"] = *outcome;
        row["lastBackupError"] = r.value("error", json(nullptr));
      }
      if (*outcome == "succeeded" && (last_good_at.empty() || *at > last_good_at)) {
        last_good_at = *at;
        row["lastGoodBackupAt"] = *at;
      }
      results.push_back(std::move(r));
    }
  return {{"asset", std::move(row)}, {"results", std::move(results)}};
}

}  // namespace ops_console::backup
