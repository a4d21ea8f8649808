#pragma once
// What a copy keeps of a vendor's long list, as JSON text, without building the rest.
//
//   // /agents/ of Tactical RMM: about 30 fields an agent, 7 kept
//   auto text = core::json::kept_items(body, {.fields = {"agent_id", "hostname", "status"}});
//   if (!text) throw ...;       // not a JSON array
//   co_await tx.query("... jsonb_to_recordset($1::jsonb) ...", *text);
//
// The items of the top-level array keep only the `fields` named (in the order the list gives
// them); of an item's fields whose value is a list of objects (a client's sites), each object keeps
// only the `nested` fields, when `nested` is not empty. An item that is not an object is kept as
// it is. Values are copied as they were written (numbers keep their text); strings are written
// again with JSON's escapes. Everything is read by nlohmann's SAX parser, so the input is checked
// as JSON whole (UTF-8 included) while only the kept values are ever copied: a 4 MB list costs
// about its parse (~20 ms), where a DOM costs twice that and another pass to trim it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core::json {

struct Kept {
  std::vector<std::string> fields;  // of each item; empty keeps every field
  std::vector<std::string> nested;  // of each object of an item's list fields; empty keeps all
};

// The trimmed list, or nullopt when `text` is not JSON or not an array.
std::optional<std::string> kept_items(std::string_view text, const Kept& kept);

}  // namespace core::json
