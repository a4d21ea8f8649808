#pragma once
// The rows of the Mimecast fake (mimecast_fake.hpp) and a deterministic demo tenant: held messages,
// tracked (message-finder) emails and the SIEM receipt events the message counts come from, for a small MSP
// customer, northwind-it.example. The same options and the same UTC day give the same rows (seed_random.hpp);
// times count back from `now` (held and tracked) or from midnight of today, UTC (events: `days` whole days
// before today, so each day's counts are complete).
#include "core/util/time.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sandbox {

struct MimecastFakeSeedOptions {
  std::uint32_t seed = 1;
  int held = 150;     // held messages (over the last 7 days; every 10th to the app's own API user)
  int tracked = 200;  // tracked emails (over the last 7 days)
  int users = 12;     // internal users, besides the API user
  int days = 7;       // whole UTC days of SIEM receipt events before today
};

namespace mimecast {

struct Address {
  std::string email;
  std::string name;
};

struct Held {
  std::string id;
  core::Timestamp received{};
  std::string reason;       // "Spam Signature"
  std::string reason_code;  // "spam_signature"
  std::string policy_info;  // the policy or definition that held it
  Address from;             // envelope
  Address from_header;      // empty email: the envelope's
  Address to;
  std::string subject;
  std::string route = "inbound";  // inbound, outbound, internal, external
  bool has_attachments = false;
  std::int64_t size = 0;
  bool released = false;
};

struct Tracked {
  std::string id;
  std::string status = "delivered";  // delivered, archived, held, rejected, bounced, ...
  Address from;                      // header
  std::string from_envelope;         // empty: from.email
  std::vector<Address> to;
  std::string subject;
  std::string route = "inbound";
  std::string sender_ip = "192.0.2.10";
  bool attachments = false;
  std::int64_t size = 0;
  core::Timestamp received{};
  int spam_score = 0;
  std::string detection_level = "moderate";  // relaxed, moderate, aggressive, cluster
  std::string message_id;                    // the internet message id; empty: one is made
  std::string info;                          // the tracking line ("Message delivered", "Rejected: ...")
};

struct Event {  // a SIEM receipt event: one message, one recipient
  std::int64_t timestamp_ms = 0;
  std::string direction;  // Inbound, Outbound, Internal
  std::string sender;
  std::string recipient;
  std::string subject;
  std::string message_id;
  std::string aggregate_id;
  std::string processing_id;
  std::string sender_ip;
  int attachments = 0;
  int spam_score = 0;
};

struct Data {
  std::vector<Held> held;          // newest first
  std::vector<Tracked> tracked;    // newest first
  std::vector<Event> events;       // oldest first (a stream)
  std::vector<std::string> users;  // internal addresses, the API user first
};

// The demo tenant. `caller` is the app's API user (an internal mailbox, held messages every 10th).
Data seed_data(const MimecastFakeSeedOptions& options, core::Timestamp now, const std::string& caller);

// "2015-11-16T14:49:18+0000": how Mimecast writes a date.
std::string date_text(core::Timestamp t);
// Mimecast's form, or RFC 3339 ("...Z", "...+00:00"); nullopt for anything else.
std::optional<core::Timestamp> parse_date(std::string_view text);
// "2025-01-01T12:30:45.000Z": the SIEM API's filter form (RFC 3339 accepted too).
std::optional<core::Timestamp> parse_siem_date(std::string_view text);

// The rows as the API renders them.
nlohmann::json render(const Held& h);
nlohmann::json render(const Tracked& t);
nlohmann::json render_info(const Tracked& t);  // get-message-info
nlohmann::json render(const Event& e, const std::string& account_id);

// [{user, day ("2026-11-20"), sent, received}] of the receipt events, internal users only, sorted.
nlohmann::json count_events(const std::vector<Event>& events, const std::vector<std::string>& users);

}  // namespace mimecast
}  // namespace sandbox
