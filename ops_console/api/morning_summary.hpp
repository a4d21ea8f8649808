#pragma once
// The morning summary (issue 22; README "Morning summary"). Every route is an administrator's: it
// posts to company chat spaces (401 without a session, 403 for anyone else, before any query).
//
//   GET    /api/morning-summary/webhooks        [webhook], by id; a webhook {id, name, url (masked), enabled, ...}
//   POST   /api/morning-summary/webhooks        {name, url, enabled?} → 201
//   PATCH  /api/morning-summary/webhooks/{id}   {name?, url?, enabled?} → 200
//   DELETE /api/morning-summary/webhooks/{id}   → 204
//   GET    /api/morning-summary/config          {timezone, sections, enabled, sendAt, weekdaysOnly, catchUpUntil, ...}
//   PUT    /api/morning-summary/config          {timezone, sections, enabled} → 200
//   POST   /api/morning-summary/send            the summary now, to every enabled webhook → the history entry
//   POST   /api/morning-summary/test            {webhookId}: a short test message → the history entry
//   GET    /api/morning-summary/history?limit   {limit, items}: every send, newest first
//
// It also starts the weekday schedule (morning/summary.hpp).
#include "core/app/service.hpp"
#include "ops_console/dashboard/clock.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/mfa/flagged.hpp"
#include "ops_console/morning/settings.hpp"
#include "ops_console/notify/notifier.hpp"

#include <memory>

namespace ops_console {

// `flagged` is null when MFA is not configured: the summary's MFA section then says so.
void install_morning_summary(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                             std::shared_ptr<integrations::Registry> registry,
                             std::shared_ptr<const notify::Notifier> notifier,
                             std::shared_ptr<mfa::FlaggedUsers> flagged, dashboard::Clock clock,
                             const morning::MorningSettings& settings);

}  // namespace ops_console
