#pragma once
// Tags (issue 17): the PSA's tag groups and tags, the PSA's ticket associations, and the
// console's own associations of companies, configuration items and contacts.
//   GET    /api/tags                                         auth  [{id, name, is_active, tags: [{id, label, is_active}]}]
//   GET    /api/companies/{id}/tags                          auth  [{id, label, tag_group_id, added_by, added_at}]; 404 no company
//   PUT    /api/companies/{id}/tags/{tagId}                  auth  201 added, 204 carried already; 404 no company or tag
//   DELETE /api/companies/{id}/tags/{tagId}                  auth  204; 404 when not carried
//   (the same three for /api/configuration-items/{id}/tags and /api/contacts/{id}/tags)
//   GET    /api/tickets/{id}/tags                            auth  [{id, label, tag_group_id, source: "psa"}], read-only
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"

namespace ops_console {

void install_tag_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity);

}  // namespace ops_console
