#pragma once
// A realistic MSP shared inbox for the Graph fake: support requests from customers, vendor
// invoices, sales enquiries, monitoring notifications, newsletters and marketing (with
// List-Unsubscribe), spam, phishing, personal mail. Deterministic for a given seed; received
// times spread over the 20 days before `now`, about a quarter already read.
#include "sandbox/graph_fake.hpp"

#include <cstdint>
#include <vector>

namespace sandbox {

std::vector<FakeMessage> demo_mail(int count, std::uint32_t seed, core::Timestamp now);

}  // namespace sandbox
