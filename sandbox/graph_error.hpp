#pragma once
// The error body Microsoft Graph answers with ({"error": {code, message, innerError}}), shared by
// the parts of the Graph fake (graph_fake*.cpp).
#include "core/http/message.hpp"

#include <string>

namespace sandbox {

core::http::Response graph_error(int status, std::string code, std::string message);

}  // namespace sandbox
