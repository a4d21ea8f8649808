#pragma once
// Notify event keys (issue 7), admin:
//   GET    /api/admin/notify-event-keys          [{key, description, sort_order, is_active, ...}] by sort_order, key
//   POST   /api/admin/notify-event-keys          {key, description?, sort_order?, is_active?} → 201; 409 on a duplicate
//   PUT    /api/admin/notify-event-keys/{key}    partial: omitted fields keep their value; 404 when absent
//   DELETE /api/admin/notify-event-keys/{key}    hard delete → 204; 404 when absent
// A key matches ^[a-z][a-z0-9_]*$ regardless of case, has at most 128 characters, and is stored
// lowercased, so keys that differ only in case are duplicates.
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"

namespace ops_console {

void install_event_key_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity);

}  // namespace ops_console
