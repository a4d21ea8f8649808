#pragma once
// The data lists any signed-in user reads (issue 6):
//   GET   /api/data/company-categories           auth   [{id, name, is_active}]
//   GET   /api/data/companies-list               auth   [{id: number, company_name}]
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"

namespace ops_console {

void install_data_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity);

}  // namespace ops_console
