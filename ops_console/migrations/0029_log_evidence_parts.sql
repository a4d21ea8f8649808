-- Log evidence streamed to storage (issue 33): an upload's bytes go to the database as they arrive,
-- in parts of 1 MiB (log_evidence_parts), so the service holds at most one part of an upload in
-- memory, whatever its size. An upload under way is a row of log_evidence_uploads with its parts;
-- once its last byte is stored, its record (log_evidence, the same id) is inserted. An upload that
-- fails (413, the client gone, a repeat of stored content) drops its row and parts at once; one cut
-- short by a crash is dropped by the daily retention job a day later. Deleting an upload's row
-- deletes its parts and its record.
CREATE TABLE log_evidence_uploads (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_id    bigint NOT NULL REFERENCES upload_tokens (id) ON DELETE CASCADE,
  started_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE log_evidence_parts (
  upload_id  uuid NOT NULL REFERENCES log_evidence_uploads (id) ON DELETE CASCADE,
  seq        integer NOT NULL CHECK (seq >= 0),
  bytes      bytea NOT NULL,
  PRIMARY KEY (upload_id, seq)
);

INSERT INTO log_evidence_uploads (id, token_id, started_at) SELECT id, token_id, uploaded_at FROM log_evidence;
INSERT INTO log_evidence_parts (upload_id, seq, bytes) SELECT id, 0, content FROM log_evidence;
ALTER TABLE log_evidence DROP COLUMN content;
ALTER TABLE log_evidence
  ADD CONSTRAINT log_evidence_upload FOREIGN KEY (id) REFERENCES log_evidence_uploads (id) ON DELETE CASCADE;
CREATE INDEX log_evidence_uploads_started ON log_evidence_uploads (started_at);
