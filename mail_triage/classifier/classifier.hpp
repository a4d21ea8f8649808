#pragma once
// Classifying one message: the labels an MSP's shared inbox needs, what the classifier is given,
// and what it answers. Two implementations: `openai` (any OpenAI-compatible chat-completions
// server) and `rules` (offline, deterministic). The action policy lives in policy.hpp.
#include <boost/asio/awaitable.hpp>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mail_triage::classifier {

// The labels, in the order the prompt lists them.
const std::vector<std::string>& labels();
// One line describing a label, for the prompt and the docs.
std::string_view describe(std::string_view label);
bool is_label(std::string_view s);

struct Mail {
  std::string from_address;
  std::string from_name;
  std::string subject;
  std::string body;
  bool has_attachments = false;
  std::map<std::string, std::string> headers;  // names lowercased
};

// What our records say about the sender (a sender profile); trusted, unlike the mail.
struct SenderHints {
  std::string display_name;
  std::string sender_type;
  std::vector<std::string> email_types;
  std::string processing_instructions;
};

struct Classification {
  std::string label;
  double confidence = 0;
  std::string reasoning;
  std::string model;  // the model that answered, or "rules"
  int prompt_tokens = 0;
  int completion_tokens = 0;
};

// A failure to classify: recorded on the log entry as `failed`, retried by the next run.
struct ClassifierError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Classifier {
 public:
  virtual ~Classifier() = default;
  virtual boost::asio::awaitable<Classification> classify(Mail mail, std::optional<SenderHints> hints) = 0;
};

}  // namespace mail_triage::classifier
