-- Phishing (issue 21; spec "Phishing campaign", "Phishing"): a report is a PSA ticket that carries
-- a reported message (an attached .eml, or headers pasted into its description); each message is
-- stored once per report (by the SHA-256 of its raw bytes) with the indicators read from it; a
-- report belongs to one campaign, grouped by shared indicators (ops_console/README.md,
-- "Phishing"). A campaign is `open` until someone closes it (`closed`); only an open campaign
-- takes new reports. The classify route writes phishing_classifications.
CREATE TABLE phishing_campaigns (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  status      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  first_seen  timestamptz NOT NULL,  -- the earliest Date of its messages (the analysis time for one without)
  last_seen   timestamptz NOT NULL,  -- the latest
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX phishing_campaigns_recent ON phishing_campaigns (last_seen DESC, id);
CREATE INDEX phishing_campaigns_status ON phishing_campaigns (status, last_seen DESC, id);

CREATE TABLE phishing_reports (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ticket_id    bigint NOT NULL UNIQUE,  -- the PSA ticket (no foreign key: the copy soft-deletes)
  campaign_id  uuid NOT NULL REFERENCES phishing_campaigns (id) ON DELETE CASCADE,
  analyzed_by  bigint REFERENCES users (id) ON DELETE SET NULL,
  analyzed_at  timestamptz NOT NULL DEFAULT now(),  -- the last analysis
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX phishing_reports_campaign ON phishing_reports (campaign_id, created_at, id);

CREATE TABLE phishing_messages (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  report_id          bigint NOT NULL REFERENCES phishing_reports (id) ON DELETE CASCADE,
  sha256             text NOT NULL,  -- of the raw message: the attachment's bytes, or the pasted header block
  source             text NOT NULL CHECK (source IN ('attachment', 'pasted_headers')),
  psa_attachment_id  bigint,         -- the PSA's attachment id (source attachment)
  file_name          text,
  subject            text NOT NULL DEFAULT '',
  from_address       text,
  from_name          text,
  reply_to           text,
  return_path        text,
  message_id         text,
  sent_at            timestamptz,    -- the Date header
  spf                text,
  dkim               text,
  dmarc              text,
  body_excerpt       text NOT NULL DEFAULT '',
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (report_id, sha256)
);

CREATE TABLE phishing_indicators (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id  bigint NOT NULL REFERENCES phishing_messages (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('sender_address', 'sender_domain', 'reply_to_address', 'reply_to_domain',
                                            'return_path_address', 'return_path_domain', 'url', 'url_domain',
                                            'attachment_sha256', 'attachment_name', 'spf', 'dkim', 'dmarc',
                                            'received_hop')),
  value       text NOT NULL CHECK (octet_length(value) BETWEEN 1 AND 1000),  -- the parser bounds it
  UNIQUE (message_id, kind, value)
);
-- Grouping looks a report's indicators up among every campaign's.
CREATE INDEX phishing_indicators_value ON phishing_indicators (kind, value);

CREATE TABLE phishing_classifications (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  campaign_id        uuid NOT NULL REFERENCES phishing_campaigns (id) ON DELETE CASCADE,
  verdict            text NOT NULL CHECK (verdict IN ('malicious', 'suspicious', 'spam', 'benign')),
  confidence         numeric NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  reasons            jsonb NOT NULL DEFAULT '[]'
                     CHECK (jsonb_typeof(reasons) = 'array' AND NOT jsonb_path_exists(reasons, '$[*] ? (@.type() != "string")')),
  model              text,
  prompt_tokens      integer,
  completion_tokens  integer,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX phishing_classifications_campaign ON phishing_classifications (campaign_id, created_at DESC, id DESC);

CREATE FUNCTION phishing_classification_json(k phishing_classifications) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', k.id, 'campaignId', k.campaign_id, 'verdict', k.verdict, 'confidence', k.confidence, 'reasons', k.reasons,
    'model', k.model, 'promptTokens', k.prompt_tokens, 'completionTokens', k.completion_tokens,
    'createdAt', k.created_at)
$$;

-- A report with its ticket (number, title) and the requester's address: the ticket's contact.
CREATE FUNCTION phishing_report_json(r phishing_reports) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', r.id, 'ticketId', r.ticket_id, 'ticketNumber', t.ticket_number, 'title', t.title,
    'requesterEmail', c.email_address, 'analyzedAt', r.analyzed_at, 'createdAt', r.created_at)
  FROM (SELECT 1) one
  LEFT JOIN tickets t ON t.id = r.ticket_id
  LEFT JOIN contacts c ON c.id = t.contact_id
$$;

CREATE FUNCTION phishing_message_json(m phishing_messages) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', m.id, 'reportId', m.report_id, 'ticketId', r.ticket_id, 'source', m.source,
    'psaAttachmentId', m.psa_attachment_id, 'fileName', m.file_name, 'subject', m.subject,
    'from', json_build_object('address', m.from_address, 'name', m.from_name), 'replyTo', m.reply_to,
    'returnPath', m.return_path, 'messageId', m.message_id, 'sentAt', m.sent_at,
    'authentication', json_build_object('spf', m.spf, 'dkim', m.dkim, 'dmarc', m.dmarc),
    'sha256', m.sha256, 'bodyExcerpt', m.body_excerpt, 'updatedAt', m.updated_at)
  FROM phishing_reports r WHERE r.id = m.report_id
$$;

-- A campaign in the list: counts, its first subjects and its latest classification.
CREATE FUNCTION phishing_campaign_summary_json(c phishing_campaigns) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', c.id, 'status', c.status, 'firstSeen', c.first_seen, 'lastSeen', c.last_seen, 'createdAt', c.created_at,
    'reports', (SELECT count(*) FROM phishing_reports r WHERE r.campaign_id = c.id),
    'messages', (SELECT count(*) FROM phishing_messages m JOIN phishing_reports r ON r.id = m.report_id
                 WHERE r.campaign_id = c.id),
    'subjects', (SELECT coalesce(json_agg(s.subject ORDER BY s.first), '[]'::json)
                 FROM (SELECT m.subject, min(m.id) AS first
                       FROM phishing_messages m JOIN phishing_reports r ON r.id = m.report_id
                       WHERE r.campaign_id = c.id AND m.subject <> ''
                       GROUP BY m.subject ORDER BY min(m.id) LIMIT 5) s),
    'latestClassification', (SELECT phishing_classification_json(k) FROM phishing_classifications k
                             WHERE k.campaign_id = c.id ORDER BY k.created_at DESC, k.id DESC LIMIT 1))
$$;

-- A campaign in full: its reports, messages, indicators (each with the number of its messages
-- that carry it) and classifications, newest first; requesterEmail is the first report's
-- requester.
CREATE FUNCTION phishing_campaign_json(c phishing_campaigns) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', c.id, 'status', c.status, 'firstSeen', c.first_seen, 'lastSeen', c.last_seen, 'createdAt', c.created_at,
    'requesterEmail', (SELECT ct.email_address FROM phishing_reports r
                       JOIN tickets t ON t.id = r.ticket_id JOIN contacts ct ON ct.id = t.contact_id
                       WHERE r.campaign_id = c.id ORDER BY r.created_at, r.id LIMIT 1),
    'reports', (SELECT coalesce(json_agg(phishing_report_json(r) ORDER BY r.created_at, r.id), '[]'::json)
                FROM phishing_reports r WHERE r.campaign_id = c.id),
    'messages', (SELECT coalesce(json_agg(phishing_message_json(m) ORDER BY m.sent_at NULLS LAST, m.id), '[]'::json)
                 FROM phishing_messages m JOIN phishing_reports r ON r.id = m.report_id WHERE r.campaign_id = c.id),
    'indicators', (SELECT coalesce(json_agg(json_build_object('kind', i.kind, 'value', i.value, 'messages', i.messages)
                                            ORDER BY i.kind, i.value), '[]'::json)
                   FROM (SELECT i.kind, i.value, count(DISTINCT i.message_id) AS messages
                         FROM phishing_indicators i
                         JOIN phishing_messages m ON m.id = i.message_id
                         JOIN phishing_reports r ON r.id = m.report_id
                         WHERE r.campaign_id = c.id GROUP BY i.kind, i.value) i),
    'classifications', (SELECT coalesce(json_agg(phishing_classification_json(k) ORDER BY k.created_at DESC, k.id DESC),
                                        '[]'::json)
                        FROM phishing_classifications k WHERE k.campaign_id = c.id))
$$;
