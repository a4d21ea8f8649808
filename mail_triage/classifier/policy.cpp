#include "mail_triage/classifier/policy.hpp"

namespace mail_triage::classifier {

const std::vector<std::string>& actions() {
  static const std::vector<std::string> a{"keep", "mark_read", "archive", "junk", "delete", "review"};
  return a;
}

std::string decide(const PolicyInput& in) {
  const bool known_sender = in.sender_type == "customer" || in.sender_type == "vendor";
  if (in.confidence < kReviewBelow) return "review";
  if (in.label == "phishing") return "review";
  if (in.label == "spam") {
    if (known_sender) return "review";
    return in.confidence >= 0.95 ? "delete" : "junk";
  }
  if (in.label == "newsletter" || in.label == "marketing") return "archive";
  if (in.label == "notification") return "mark_read";
  return "keep";
}

}  // namespace mail_triage::classifier
