#pragma once
#include "core/app/service.hpp"

namespace mail_triage {

// The service as the core runs it: name, port, migrations, routes.
const core::app::ServiceDefinition& definition();

}  // namespace mail_triage
