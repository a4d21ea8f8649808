#pragma once
// The company mappings of an integration's copy (endpoint security's sites, backup's client names,
// remote management's clients): an administrator names a vendor's record the name match left
// without a company, and the PSA company it belongs to. One rule for each:
//   POST   <path> {<key>, companyId}  admin: 200 the mapping (mapping again replaces it); 400 naming
//          <key> (not in the copy) or companyId (no company, or a deleted one)
//   DELETE <path>?<key>=              admin: 204; 404 no mapping; 400 without <key>
// Both answer 403 while the integration is switched off (after the administrator check). With
// `rematch`, the mapping and the copy's companies change in one transaction.
#include "core/db/pool.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/integrations/registry.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace ops_console::integrations {

struct CompanyMappingRoute {
  std::string path;          // "/api/backup/company-mappings"
  std::string key;           // the integration's key: "backup"
  std::string name;          // as the 403 names it: "backup"
  std::string key_field;     // "clientName"
  bool integer_key = false;  // a positive integer (an id), else text of 1 to max_key_length characters
  std::size_t max_key_length = 200;
  std::string noun;          // as the 404 names the record: "client"
  std::string unknown_key;   // the 400's words for a key the copy does not hold
  std::string_view exists;   // $1 the key → a row while the copy holds it
  std::string_view map;      // $1 the key, $2 the company, $3 the administrator → the mapping's JSON
  std::string_view unmap;    // $1 the key → a row when a mapping was deleted
  std::string_view rematch;  // optional: run after either, in the same transaction
};

void install_company_mapping_routes(identity::Routes& routes, core::db::Pool& db, std::shared_ptr<Registry> registry,
                                    CompanyMappingRoute route);

}  // namespace ops_console::integrations
