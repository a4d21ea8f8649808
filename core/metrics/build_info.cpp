// The version and commit the build was configured with (core/CMakeLists.txt defines them on this
// file alone, outside the unity batches, so a new commit recompiles only it).
#include "core/metrics/process.hpp"

#ifndef MSP_BUILD_VERSION
#define MSP_BUILD_VERSION "unknown"
#endif
#ifndef MSP_BUILD_COMMIT
#define MSP_BUILD_COMMIT "unknown"
#endif

namespace core::metrics {

std::string_view build_version() { return MSP_BUILD_VERSION; }
std::string_view build_commit() { return MSP_BUILD_COMMIT; }

}  // namespace core::metrics
