#pragma once
// A reported message (issue 21, spec "Phishing"): the e-mail a user forwarded to the help desk,
// read with GMime 3, and the indicators a campaign is grouped by. Pure: no I/O.
//
//   const auto message = phishing::parse_message(eml_bytes);   // throws ParseError: not a message
//   if (phishing::has_pasted_headers(ticket_description))
//     auto pasted = phishing::parse_pasted_headers(ticket_description);  // headers_only
//   for (const auto& i : phishing::indicators(message)) ... i.kind, i.value
//
// Addresses and domains come out lowercased, lists without duplicates, in the order met. Every
// string is bounded (kMaxValue bytes, whole UTF-8 characters), and so is every list, so that a
// hostile message cannot make a stored indicator outgrow its index.
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ops_console::phishing {

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr std::size_t kMaxValue = 1000;  // bytes of one address, URL, hop or name
inline constexpr std::size_t kMaxText = 4000;   // bytes of the readable body kept
inline constexpr std::size_t kMaxUrls = 100;
inline constexpr std::size_t kMaxAttachments = 50;
inline constexpr std::size_t kMaxHops = 30;

struct Mailbox {
  std::string name;     // the display name, decoded ("Microsoft 365 Support")
  std::string address;  // lowercased
};

struct AttachmentInfo {
  std::string name;          // the file name it carries ("" when none)
  std::string content_type;  // "text/html"
  std::string sha256;        // of the decoded content, lowercase hex
  std::size_t size = 0;      // decoded bytes
};

struct ReportedMessage {
  std::string subject;  // decoded (RFC 2047 encoded-words), "" when none
  std::vector<Mailbox> from, reply_to, to;
  std::string return_path;            // the Return-Path address, lowercased; "" when none or <>
  std::string message_id;             // without angle brackets
  std::optional<std::string> date;    // the Date header as RFC 3339 UTC, when it reads as a date
  std::vector<std::string> received;  // the Received hops, topmost (the last relay) first, without their dates
  std::string spf, dkim, dmarc;       // results of the topmost Authentication-Results ("fail"); "" when absent
  std::vector<std::string> urls;      // http(s) links of the text and HTML parts
  std::vector<AttachmentInfo> attachments;
  std::string text;           // the readable body: the text part, else the HTML one without its tags
  bool headers_only = false;  // pasted headers: there was no body to read
};

struct Indicator {
  std::string kind;  // sender_address, sender_domain, reply_to_address, reply_to_domain, return_path_address,
                     // return_path_domain, url, url_domain, attachment_sha256, attachment_name, spf, dkim,
                     // dmarc, received_hop
  std::string value;
  bool operator==(const Indicator&) const = default;
};

// The message in `raw` (RFC 5322, MIME; a leading mbox "From " line is skipped). Throws ParseError
// when it is not a message with at least one header.
ReportedMessage parse_message(std::string_view raw);

// Whether a ticket's description carries a pasted header block: a From header and at least one
// transport header (Received, Return-Path, Authentication-Results, Message-ID, DKIM-Signature),
// each at the start of a line. A forwarded mail's "From: / Sent: / To: / Subject:" lines are not.
bool has_pasted_headers(std::string_view description);

// The pasted header block of a description as a message's header section (CRLF, continuation
// lines folded, a blank line after it); nullopt when there is none. The block starts at a known
// header's line and ends at a blank line; lines inside it that do not look like a header continue
// the one before (pasting often loses the folding whitespace). The first block with a From and
// a transport header counts.
std::optional<std::string> pasted_header_block(std::string_view description);

// The pasted header block, read as a message without a body (headers_only). Throws ParseError
// when has_pasted_headers() is false.
ReportedMessage parse_pasted_headers(std::string_view description);

// The indicators of a message, de-duplicated, in the order of the kinds above.
std::vector<Indicator> indicators(const ReportedMessage& message);

// The lowercased host of an http(s) URL ("login.example" of "https://User@Login.Example:8443/x");
// "" when it has none.
std::string url_domain(std::string_view url);

}  // namespace ops_console::phishing
