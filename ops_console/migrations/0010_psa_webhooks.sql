-- The PSA's webhook callouts (issue 17), one row per event received: processed, or failed with
-- its error. event_id identifies the event, not the webhook: Autotask's Guid names the webhook
-- and is the same on every callout of it, so the service derives event_id from the Guid, entity
-- type, entity id, action, SequenceNumber and EventTime (ops_console/psa/webhooks.cpp). A retried
-- callout has the same event_id and is acknowledged without a second row.
CREATE TABLE webhook_events (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id       text NOT NULL UNIQUE,
  guid           text,
  entity_type    text,          -- the payload's EntityType, as sent ("Ticket"); NULL when unreadable
  entity_id      bigint,
  action         text,
  status         text NOT NULL CHECK (status IN ('processed', 'failed')),
  error_message  text,
  source_ip      varchar(45),
  user_agent     text,
  event_time     timestamptz,
  received_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_recent ON webhook_events (received_at DESC, id DESC);
CREATE INDEX webhook_events_entity ON webhook_events (entity_type, received_at DESC, id DESC);
CREATE INDEX webhook_events_source ON webhook_events (source_ip, received_at);
