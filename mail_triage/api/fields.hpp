#pragma once
// Field rules shared by the mail-triage routes, so an address means the same everywhere.
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"

namespace mail_triage::fields {

// Addresses and domains are stored lowercased; lookups compare plainly.
inline const core::json::StringRule email_address{.max_length = 320,
                                                  .check = core::is_email_address,
                                                  .check_message = "must be an e-mail address",
                                                  .lowercase = true};
inline const core::json::StringRule domain{.max_length = 253,
                                           .check = core::is_domain_name,
                                           .check_message = "must be a domain name such as example.com",
                                           .lowercase = true};
inline const core::json::StringRule display_name{.max_length = 200};
inline const core::json::StringRule free_text{.max_length = 10'000};

}  // namespace mail_triage::fields
