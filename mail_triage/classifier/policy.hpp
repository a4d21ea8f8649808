#pragma once
// From a classification (and who sent the mail) to what happens to the message.
//
// | condition (first that holds)                       | action    | in the mailbox               |
// |----------------------------------------------------|-----------|------------------------------|
// | confidence below the review threshold (0.6)         | review    | flagged, left unread         |
// | phishing                                            | review    | flagged, left unread         |
// | spam from a customer or vendor                      | review    | flagged, left unread         |
// | spam, confidence at least 0.95                      | delete    | moved to Deleted Items       |
// | spam                                                | junk      | moved to Junk Email          |
// | newsletter, marketing                               | archive   | moved to Archive             |
// | notification                                        | mark_read | marked read                  |
// | support_request, billing, sales, personal, other    | keep      | untouched (stays unread)     |
//
// Whitelisted senders never reach the policy: their mail is logged `skipped` and left alone.
// Low confidence never deletes; "delete" moves to Deleted Items (recoverable), it never purges.
#include <string>
#include <string_view>
#include <vector>

namespace mail_triage::classifier {

const std::vector<std::string>& actions();  // keep, mark_read, archive, junk, delete, review

struct PolicyInput {
  std::string_view label;
  double confidence = 0;
  std::string_view sender_type;  // customer, vendor, unknown
};

// Below this confidence a person looks at the message, whatever the label.
inline constexpr double kReviewBelow = 0.6;

std::string decide(const PolicyInput& in);

}  // namespace mail_triage::classifier
