#pragma once
// A believable MSP for the Autotask fake, from a seeded generator: the same counts, seed and
// `now` give the same rows. The MSP itself is company 0, as in Autotask; its customers have
// classifications, a few are inactive, vendors and prospects among them; tickets spread over the
// last `days` days, most of those older than a week Complete (5), the recent ones New, In
// Process, Waiting Customer or Waiting Vendor, with createDate ≤ firstResponseDateTime ≤
// completedDate (= resolvedDateTime) ≤ lastActivityDate ≤ now; time entries on completed
// tickets and on tasks; projects with their tasks, contracts, configuration items, tag groups,
// tags and tags on tickets. The most recent open tickets raised by contacts include seven
// phishing reports: six with the reported message attached ("TicketAttachments" rows, `data` in
// base64), one with its headers pasted (sandbox/phishing_mails.hpp).
#include "core/util/time.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sandbox::autotask {

struct SeedCounts {
  std::uint32_t seed = 1;
  int companies = 40;  // the MSP's own company 0 included
  int contacts = 300;
  int resources = 15;
  int tickets = 5000;
  int time_entries = 3000;
  int projects = 20;
  int tasks = 100;
  int contracts = 40;
  int configuration_items = 200;
  int tag_groups = 4;
  int tags = 16;
  int ticket_tags = 600;
  int days = 120;  // tickets are created over the last `days` days
};

// Rows by entity name ("Tickets"), each in id order.
std::map<std::string, std::vector<nlohmann::json>> seed_rows(const SeedCounts& counts, core::Timestamp now);

// The name company `index` gets (0 is the MSP itself, "Northwind IT Services"; then a list of
// customers, numbered " 2", " 3"... once it runs out), whatever the seed: other fakes (Pax8)
// name their companies after these.
std::string company_name(int index);

// Autotask's form of a dateTime: UTC, milliseconds, "Z" ("2026-03-02T09:15:27.120Z").
std::string format_time(core::Timestamp t);

}  // namespace sandbox::autotask
