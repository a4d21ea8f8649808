-- Standard Webhooks for the copies to agent instances (issue 31; README "Copies to agent
-- instances"): each copy carries a webhook-id, the same on every attempt of that copy, which an
-- agent keeps to recognise a retry. It is random rather than the row's id: ids start again in a
-- rebuilt or restored database, and an agent that remembers an id would then drop a new push as a
-- repeat. Existing rows each get their own (a volatile default is computed per row).
ALTER TABLE agent_deliveries
  ADD COLUMN webhook_id text NOT NULL DEFAULT 'msg_' || replace(gen_random_uuid()::text, '-', '');
