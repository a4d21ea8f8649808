#pragma once
#include "core/app/service.hpp"

namespace ops_console {

// The service as the core runs it: name, port, migrations, routes.
const core::app::ServiceDefinition& definition();

}  // namespace ops_console
