-- Log evidence (issue 33): files that RMM scripts and technicians' tools upload for a ticket or a
-- company, through the public upload route, authenticated by an upload token an administrator
-- created (only its SHA-256 is kept; the token is shown once). The bytes are a bytea beside their
-- record: an upload is capped (LOG_EVIDENCE_MAX_BYTES, 10 MiB by default), well within what bytea
-- carries, and a row's bytes go with it in one transaction, one backup and one retention DELETE
-- (a large object would need its own unlink and vacuumlo).
CREATE TABLE upload_tokens (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL,
  token_hash  text NOT NULL UNIQUE,
  created_by  bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz,
  last_used_at timestamptz
);

CREATE TABLE log_evidence (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_id      bigint NOT NULL REFERENCES upload_tokens (id) ON DELETE CASCADE,
  sha256        text NOT NULL,
  size_bytes    bigint NOT NULL CHECK (size_bytes > 0),
  content_type  text NOT NULL,
  file_name     text NOT NULL,
  ticket_id     bigint REFERENCES tickets (id) ON DELETE SET NULL,
  company_id    bigint REFERENCES companies (id) ON DELETE SET NULL,
  content       bytea NOT NULL,
  uploaded_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (token_id, sha256)  -- the same content from the same source is one record
);
CREATE INDEX log_evidence_uploaded ON log_evidence (uploaded_at);
CREATE INDEX log_evidence_ticket ON log_evidence (ticket_id) WHERE ticket_id IS NOT NULL;
CREATE INDEX log_evidence_company ON log_evidence (company_id) WHERE company_id IS NOT NULL;

-- A token as administrators see it: never the token or its hash.
CREATE FUNCTION upload_token_json(t upload_tokens) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object('id', t.id, 'name', t.name, 'createdBy', t.created_by, 'createdAt', t.created_at,
                           'revokedAt', t.revoked_at, 'lastUsedAt', t.last_used_at)
$$;

-- A record without its bytes.
CREATE FUNCTION log_evidence_json(e log_evidence) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object('id', e.id, 'sha256', e.sha256, 'size', e.size_bytes, 'contentType', e.content_type,
                           'fileName', e.file_name, 'ticketId', e.ticket_id, 'companyId', e.company_id,
                           'tokenId', e.token_id, 'tokenName', (SELECT t.name FROM upload_tokens t WHERE t.id = e.token_id),
                           'uploadedAt', e.uploaded_at)
$$;
