// A PSA webhook callout's body, as the intake reads it (ops_console/psa/webhook_payload.hpp),
// and its Fields mapped onto the columns of the entity it names (psa/entities.hpp): no crash,
// and what comes out keeps its promises.
#include "ops_console/psa/entities.hpp"
#include "ops_console/psa/webhook_payload.hpp"

#include <cstdlib>
#include <string_view>

using namespace ops_console::psa;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const WebhookEvent e = read_webhook(body);
  // An event always has an id: the 64 hex of a SHA-256, after "malformed:" for a body that is not an object.
  const std::string_view hex =
      e.event_id.starts_with("malformed:") ? std::string_view(e.event_id).substr(10) : std::string_view(e.event_id);
  if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdef") != std::string_view::npos) std::abort();
  if (!e.malformed && (!e.action || !e.entity_type || !e.entity_id || *e.entity_id <= 0)) std::abort();
  if (e.entity) {
    const auto row = to_row(*e.entity, e.fields);
    if (!row.is_object()) std::abort();
    for (const auto& [column, value] : row.items()) {  // only the entity's own columns come out
      bool known = false;
      for (const auto& f : e.entity->fields) known = known || f.column == column;
      if (!known) std::abort();
    }
  }
  return 0;
}
