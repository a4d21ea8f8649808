#pragma once
// Notification channels and subscriptions (issue 7; ops_console/README.md has the details). A
// channel renders as notification_channel_json() (migration 0008), which hides its secrets.
//
//   api/notification_channels.cpp: global and personal channels by id
//   GET    /api/notification-channels?owner=global|personal|all   admins: every row with owner_email;
//                                                                 others: global channels, no configuration
//   POST   /api/notification-channels                (admin) {channel_type, owner_user_id?, name?, enabled?, config} → 201
//   GET    /api/notification-channels/{id}           admin, or the owner of a personal channel
//   PATCH  /api/notification-channels/{id}           {name?, enabled?, config?} (config merges over the stored one)
//   DELETE /api/notification-channels/{id}           → 204
//   POST   /api/notification-channels/{id}/test      sends a test message → {channel_id, delivered, ...}
//   POST   /api/notification-channels/{id}/rotate-secret   a webhook channel's new secret → the channel and
//                                                          `secret`, shown this once
//
//   api/personal_channels.cpp: the session user's own, by type
//   GET    /api/me/channels                          the session user's personal channels
//   PUT    /api/me/channels/{type}                   upsert, then a best-effort test → {channel, test}
//   DELETE /api/me/channels/{type}                   → 204; 404 when absent
//   POST   /api/me/channels/{type}/test              → {channel_id, delivered, ...}; 404 when absent
//   POST   /api/me/channels/{type}/rotate-secret     webhook only → the channel and its new `secret`
//
// A webhook channel created without a secret gets one (core::standard_webhooks::new_secret, as an
// agent instance does): the creating answer shows it as `secret` (the channel's own, or `channel`'s
// in a PUT), that once; it is write-only afterwards, as every secret of a channel.
//
//   api/notification_subscriptions.cpp: the session user's matrix
//   GET    /api/me/notification-subscriptions        {eventKeys, channelTypes, matrix}; cells default to true
//   PUT    /api/me/notification-subscriptions        {event_key, channel_type, enabled} → the cell
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/notify/notifier.hpp"

namespace ops_console {

void install_channel_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                            std::shared_ptr<const notify::Notifier> notifier);
void install_personal_channel_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                                     std::shared_ptr<const notify::Notifier> notifier);
void install_subscription_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity);

inline void install_notification_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                                        std::shared_ptr<const notify::Notifier> notifier) {
  install_channel_routes(ctx, identity, notifier);
  install_personal_channel_routes(ctx, identity, notifier);
  install_subscription_routes(ctx, identity);
}

// What the three share.
namespace channel_fields {
inline const core::json::StringRule kChannelType{
    .one_of = {notify::kChannelTypes.begin(), notify::kChannelTypes.end()}};
inline const core::json::StringRule kName{.max_length = 200};
// The answer of a test send.
core::http::Response test_result(std::int64_t channel_id, const notify::Delivery& delivery);
// Gives the webhook channel `channel_id` a new secret → the channel with `secret` (404 when it is gone).
boost::asio::awaitable<core::http::Response> rotate_secret(core::db::Pool& db, std::int64_t channel_id);
}  // namespace channel_fields

}  // namespace ops_console
