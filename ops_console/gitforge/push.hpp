#pragma once
// Reading a source-control forge's webhook delivery (GitHub, and Gitea in GitHub's shape;
// ../shared/vendors.md "Source control push"), apart from storing it: pure, so a fuzz target reads
// outside input through exactly this code (fuzz/fuzz_gitforge_push.cpp).
//
//   const ForgeHeaders h = forge_headers(req);           // which forge, event, delivery, signatures
//   if (!signature_ok(h, body, secret)) ... 401
//   const PushRead push = read_push(body);                // push.problem: 400 naming the field
//   const nlohmann::json copy = envelope(h, push, body);  // what each agent instance gets
#include "core/http/problem.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ops_console::gitforge {

// A delivery's headers, as the forge sent them. Gitea sends GitHub's names too; Gitea's own win
// only where GitHub's are absent.
struct ForgeHeaders {
  std::string forge;      // "gitea" when X-Gitea-Event is present, else "github"
  std::string event;      // X-GitHub-Event, else X-Gitea-Event; empty when neither
  std::string delivery;   // X-GitHub-Delivery, else X-Gitea-Delivery; empty when neither
  std::string signature;  // X-Hub-Signature-256 ("sha256=<hex>"), else X-Gitea-Signature (bare hex)
};

// The headers by lowercased name, as core::http::Request::header() answers them.
template <class Headers>
ForgeHeaders forge_headers(const Headers& header) {
  const auto first = [&](std::string_view a, std::string_view b) {
    const auto v = header(a);
    return std::string(v.empty() ? header(b) : v);
  };
  return {.forge = header("x-gitea-event").empty() ? "github" : "gitea",
          .event = first("x-github-event", "x-gitea-event"),
          .delivery = first("x-github-delivery", "x-gitea-delivery"),
          .signature = first("x-hub-signature-256", "x-gitea-signature")};
}

// The HMAC-SHA256 of the raw body under `secret`, in GitHub's "sha256=<hex>" or Gitea's bare hex,
// compared in constant time. An empty secret passes everything (the spec: the check is skipped).
bool signature_ok(const ForgeHeaders& headers, std::string_view body, std::string_view secret);

// The delivery id when the forge sent none: "sha256:<hex of the body>", so a body sent twice is
// one delivery.
std::string delivery_id(const ForgeHeaders& headers, std::string_view body);

struct Commit {
  std::string id;  // 7 to 64 hex digits, lowercased
  std::string message;
  std::optional<std::string> author_name, author_email, url;
  std::optional<std::string> timestamp;  // RFC 3339 as the forge wrote it; unset when missing or unreadable
};

struct PushRead {
  std::string repository;  // repository.full_name
  std::string ref;         // "refs/heads/main"
  std::string branch;      // "main"; a ref outside refs/heads/ (a tag) is kept whole
  std::optional<std::string> pusher;
  std::vector<Commit> commits;
  nlohmann::json payload;                        // the body, parsed
  std::optional<core::http::Problem> malformed;  // 400, naming the first field that is wrong
};

// At most this many commits in one push (GitHub's own limit for a payload).
inline constexpr std::size_t kMaxCommits = 2048;

PushRead read_push(std::string_view body);

// The JSON every agent instance receives for a push: {type: "gitforge.push", delivery_id, forge,
// repository, ref, branch, pusher, commits: [{id, message, author_name, author_email, timestamp,
// url}], payload: the forge's body}.
nlohmann::json envelope(const ForgeHeaders& headers, const std::string& delivery, const PushRead& push);

// The chat message of a push: repository, branch, pusher, commit count, and the first line of up
// to five commit messages.
struct Summary {
  std::string title;
  std::string text;
};
Summary summary(const PushRead& push);

}  // namespace ops_console::gitforge
