-- The distributor's copy (issue 19; Pax8, vendors.md "Distributor: Pax8"): the spec's three
-- distributor tables (companies, subscriptions, items) and the reviews that match a distributor
-- company to a PSA company. Ids are the distributor's. A full sync upserts what it reads and
-- soft-deletes (deleted_at) what the distributor no longer returns.
CREATE TABLE distributor_companies (
  id                  uuid PRIMARY KEY,
  name                text NOT NULL,
  status              text,
  external_id         text,
  updated_date        timestamptz,
  matched_company_id  bigint REFERENCES companies (id) ON DELETE SET NULL,
  match_method        text CHECK (match_method IN ('exact', 'review')),
  matched_at          timestamptz,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at          timestamptz
);
CREATE INDEX distributor_companies_name ON distributor_companies (lower(name), id) WHERE deleted_at IS NULL;

CREATE TABLE distributor_subscriptions (
  id            uuid PRIMARY KEY,
  company_id    uuid NOT NULL,   -- no foreign key: a page of subscriptions may name a company read later
  product_id    text,
  product_name  text,
  quantity      numeric,
  status        text,            -- Active, Cancelled, PendingCancel, Trial, ...
  billing_term  text,            -- Monthly, Annual, ...
  price         numeric,
  partner_cost  numeric,
  currency_code text,
  start_date    timestamptz,
  end_date      timestamptz,
  synced_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at    timestamptz
);
CREATE INDEX distributor_subscriptions_company ON distributor_subscriptions (company_id) WHERE deleted_at IS NULL;

-- Invoice items and order line items, one table: `kind` says which, `parent_id` is the invoice
-- or the order. subscription_id may name a subscription that no longer exists.
CREATE TABLE distributor_items (
  kind            text NOT NULL CHECK (kind IN ('invoice', 'order')),
  id              text NOT NULL,
  parent_id       text NOT NULL,
  company_id      uuid,
  subscription_id uuid,
  product_id      text,
  product_name    text,
  description     text,
  quantity        numeric,
  price           numeric,
  cost            numeric,
  cost_total      numeric,
  total           numeric,        -- the line total
  start_period    timestamptz,
  end_period      timestamptz,
  item_date       timestamptz,    -- the invoice's date, the order's createdDate
  synced_at       timestamptz NOT NULL DEFAULT now(),
  deleted_at      timestamptz,
  PRIMARY KEY (kind, id)
);
CREATE INDEX distributor_items_subscription ON distributor_items (subscription_id, item_date DESC) WHERE deleted_at IS NULL;
CREATE INDEX distributor_items_company ON distributor_items (company_id) WHERE deleted_at IS NULL;

-- A company name as matching compares it: lowercase, punctuation as spaces, trailing legal
-- suffixes dropped ("Contoso Pty. Ltd." and "CONTOSO" are both "contoso").
CREATE FUNCTION distributor_normalised_name(name text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT btrim(regexp_replace(
    regexp_replace(
      btrim(regexp_replace(lower(name), '[^[:alnum:]]+', ' ', 'g')),
      '( (ltd|limited|inc|incorporated|llc|l l c|gmbh|pty|plc|corp|corporation|co|company|ag|bv|b v|nv|sa|sarl|srl|oy|ab|kg|pte|lp|llp))+$',
      ''),
    ' +', ' ', 'g'))
$$;
-- Kept beside each name, so that matching compares stored text: equality for the exact match,
-- trigram distance (a GiST index, nearest first) for the candidates of a review.
ALTER TABLE distributor_companies
  ADD COLUMN normalised_name text GENERATED ALWAYS AS (distributor_normalised_name(name)) STORED;
ALTER TABLE companies
  ADD COLUMN normalised_name text GENERATED ALWAYS AS (distributor_normalised_name(company_name)) STORED;
CREATE INDEX companies_normalised_name ON companies (normalised_name) WHERE deleted_at IS NULL;
CREATE INDEX companies_normalised_name_trgm ON companies USING gist (normalised_name gist_trgm_ops)
  WHERE deleted_at IS NULL;

-- One review per distributor company that no exact match settled: its candidates
-- [{companyId, name, confidence}], at most five, best first. Resolving it records who, when, the
-- company chosen and a note; a resolved review is never reopened.
CREATE TABLE distributor_company_matches (
  id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  distributor_company_id  uuid NOT NULL UNIQUE REFERENCES distributor_companies (id),
  candidates              jsonb NOT NULL DEFAULT '[]',
  resolved                boolean NOT NULL DEFAULT false,
  resolved_company_id     bigint,
  note                    text CHECK (length(note) <= 500),
  resolved_by             bigint REFERENCES users (id) ON DELETE SET NULL,
  resolved_at             timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX distributor_company_matches_open ON distributor_company_matches (created_at, id) WHERE NOT resolved;

-- A review as the routes show it: the distributor company's name, and each candidate's current
-- PSA name.
CREATE FUNCTION distributor_company_match_json(m distributor_company_matches) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', m.id,
    'distributorCompanyId', m.distributor_company_id,
    'distributorCompanyName', (SELECT name FROM distributor_companies WHERE id = m.distributor_company_id),
    'unresolved', NOT m.resolved,
    'candidates', (SELECT coalesce(json_agg(json_build_object(
                      'companyId', (c ->> 'companyId')::bigint,
                      'name', coalesce(p.company_name, c ->> 'name'),
                      'confidence', (c ->> 'confidence')::numeric) ORDER BY n), '[]'::json)
                   FROM jsonb_array_elements(m.candidates) WITH ORDINALITY AS e(c, n)
                   LEFT JOIN companies p ON p.id = (c ->> 'companyId')::bigint),
    'resolvedCompanyId', m.resolved_company_id,
    'note', m.note,
    'resolvedBy', m.resolved_by,
    'resolvedAt', m.resolved_at,
    'createdAt', m.created_at)
$$;

-- What an active subscription costs the MSP a month: partner cost × quantity, spread over the
-- months of its billing term (Annual: 12; 2 and 3 years: 24 and 36; one-time: nothing; anything
-- else: monthly).
CREATE FUNCTION distributor_monthly_cost(s distributor_subscriptions) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN s.status IS DISTINCT FROM 'Active' THEN 0
    WHEN lower(s.billing_term) LIKE '%one%time%' THEN 0
    ELSE coalesce(s.partner_cost, 0) * coalesce(s.quantity, 0) /
         CASE WHEN lower(s.billing_term) LIKE '%3%year%' OR lower(s.billing_term) LIKE '%three%' THEN 36
              WHEN lower(s.billing_term) LIKE '%2%year%' OR lower(s.billing_term) LIKE '%two%' THEN 24
              WHEN lower(s.billing_term) LIKE '%annual%' OR lower(s.billing_term) LIKE '%year%' THEN 12
              ELSE 1 END
  END
$$;

-- An item's label: its product name, else its description, else its product id.
CREATE FUNCTION distributor_item_label(i distributor_items) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(nullif(btrim(i.product_name), ''), nullif(btrim(i.description), ''), i.product_id)
$$;

-- A distributor company with its subscriptions, the latest billed cost of each (the line total
-- of its latest invoice item), and the order items of subscriptions that no longer exist.
CREATE FUNCTION distributor_company_json(d distributor_companies) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', d.id,
    'name', d.name,
    'status', d.status,
    'matchedCompanyId', d.matched_company_id,
    'matchedCompanyName', (SELECT company_name FROM companies WHERE id = d.matched_company_id),
    'matchMethod', d.match_method,
    'activeSubscriptions', (SELECT count(*) FROM distributor_subscriptions s
                            WHERE s.company_id = d.id AND s.deleted_at IS NULL AND s.status = 'Active'),
    'monthlyCost', (SELECT round(coalesce(sum(distributor_monthly_cost(s)), 0), 2) FROM distributor_subscriptions s
                    WHERE s.company_id = d.id AND s.deleted_at IS NULL),
    'subscriptions', (
      SELECT coalesce(json_agg(json_build_object(
          'id', s.id,
          'label', coalesce(nullif(btrim(s.product_name), ''), distributor_item_label(b), s.product_id),
          'productId', s.product_id, 'productName', s.product_name, 'quantity', s.quantity, 'status', s.status,
          'billingTerm', s.billing_term, 'price', s.price, 'partnerCost', s.partner_cost,
          'currencyCode', s.currency_code, 'startDate', s.start_date, 'endDate', s.end_date,
          'monthlyCost', round(distributor_monthly_cost(s), 2),
          'latestBilledCost', b.total, 'latestBilledAt', coalesce(b.end_period, b.item_date))
          ORDER BY s.status <> 'Active', lower(s.product_name), s.id), '[]'::json)
      FROM distributor_subscriptions s
      LEFT JOIN LATERAL (SELECT i.* FROM distributor_items i
                         WHERE i.kind = 'invoice' AND i.subscription_id = s.id AND i.deleted_at IS NULL
                         ORDER BY coalesce(i.end_period, i.item_date) DESC NULLS LAST, i.id DESC LIMIT 1) b ON true
      WHERE s.company_id = d.id AND s.deleted_at IS NULL),
    'orphanedOrderItems', (
      SELECT coalesce(json_agg(json_build_object(
          'id', i.id, 'orderId', i.parent_id, 'subscriptionId', i.subscription_id, 'label', distributor_item_label(i),
          'productId', i.product_id, 'quantity', i.quantity, 'orderedAt', i.item_date)
          ORDER BY i.item_date DESC NULLS LAST, i.id), '[]'::json)
      FROM distributor_items i
      WHERE i.kind = 'order' AND i.company_id = d.id AND i.deleted_at IS NULL AND i.subscription_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM distributor_subscriptions s
                        WHERE s.id = i.subscription_id AND s.deleted_at IS NULL)),
    'syncedAt', d.synced_at)
$$;
