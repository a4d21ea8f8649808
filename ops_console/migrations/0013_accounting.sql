-- The accounting connection and copy (issue 19; Xero, vendors.md "Accounting: Xero").
--
-- The JSON shape of a sync run (sync_history, migration 0009), as the status routes answer it.
CREATE FUNCTION sync_history_json(h sync_history) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('id', h.id, 'entityType', h.entity_type, 'kind', h.kind, 'startedAt', h.started_at,
                           'finishedAt', h.finished_at, 'status', h.status, 'counts', h.counts, 'error', h.error)
$$;

-- One connection at most: the organisation an administrator connected, its tokens sealed with
-- DATA_ENCRYPTION_KEY (core/util/secret_box.hpp: "v1." + base64), never stored in clear. Every
-- refresh replaces both tokens in one UPDATE, under the row's lock (ops_console/accounting/
-- connection.hpp).
CREATE TABLE accounting_connection (
  singleton          boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  connection_id      uuid NOT NULL,          -- Xero's, for DELETE /connections/{id}
  tenant_id          uuid NOT NULL,
  tenant_name        text NOT NULL,
  base_currency      text,                   -- the organisation's, read by each sync
  access_token       text NOT NULL,          -- sealed
  refresh_token      text NOT NULL,          -- sealed
  access_expires_at  timestamptz NOT NULL,
  refreshes          bigint NOT NULL DEFAULT 0,
  refreshed_at       timestamptz,
  needs_reconnect    text,                   -- why Xero refused the refresh token; NULL while usable
  connected_by       bigint REFERENCES users (id) ON DELETE SET NULL,
  connected_at       timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

-- A consent under way: the state (only its SHA-256 kept) is single-use, bound to the session
-- that asked, and lives 10 minutes; the PKCE verifier waits here for the callback.
CREATE TABLE accounting_auth_states (
  state_hash     text PRIMARY KEY,
  session_hash   text NOT NULL,
  user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_verifier  text NOT NULL,
  expires_at     timestamptz NOT NULL
);

-- The copy, keyed by organisation: a later connection to another organisation does not mix with
-- it, and a disconnect leaves it in place. Amounts in the invoice's currency; currency_rate
-- converts to the organisation's (amount / rate).
CREATE TABLE accounting_contacts (
  tenant_id    uuid NOT NULL,
  id           uuid NOT NULL,
  name         text,
  email        text,
  status       text,            -- ACTIVE, ARCHIVED, GDPRREQUEST
  is_customer  boolean,
  is_supplier  boolean,
  updated_utc  timestamptz,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

CREATE TABLE accounting_invoices (
  tenant_id      uuid NOT NULL,
  id             uuid NOT NULL,
  number         text,
  type           text NOT NULL,   -- ACCREC (receivable; the sync reads only these)
  contact_id     uuid,
  contact_name   text,
  status         text NOT NULL,   -- DRAFT, SUBMITTED, AUTHORISED, PAID, VOIDED, DELETED
  invoice_date   date,
  due_date       date,
  currency_code  text,
  currency_rate  numeric NOT NULL DEFAULT 1,
  sub_total      numeric NOT NULL DEFAULT 0,
  total          numeric NOT NULL DEFAULT 0,
  amount_due     numeric NOT NULL DEFAULT 0,
  amount_paid    numeric NOT NULL DEFAULT 0,
  fully_paid_on  date,
  updated_utc    timestamptz,
  synced_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX accounting_invoices_open ON accounting_invoices (tenant_id, due_date)
  WHERE type = 'ACCREC' AND status = 'AUTHORISED' AND amount_due > 0;
CREATE INDEX accounting_invoices_date ON accounting_invoices (tenant_id, invoice_date) WHERE type = 'ACCREC';

CREATE TABLE accounting_payments (
  tenant_id      uuid NOT NULL,
  id             uuid NOT NULL,
  invoice_id     uuid,
  payment_type   text,            -- ACCRECPAYMENT (the sync reads only these)
  status         text,            -- AUTHORISED, DELETED
  payment_date   date,
  amount         numeric NOT NULL DEFAULT 0,
  currency_rate  numeric NOT NULL DEFAULT 1,
  reference      text,
  updated_utc    timestamptz,
  synced_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX accounting_payments_date ON accounting_payments (tenant_id, payment_date);

-- Xero's JSON dates, "/Date(1539993600000+0000)/": milliseconds since the epoch, UTC (the offset
-- only says where it was written). NULL for anything else.
CREATE FUNCTION xero_instant(value text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_timestamp((substring(value FROM '^/Date\((-?[0-9]{1,15})(?:[+-][0-9]{4})?\)/$'))::bigint / 1000.0)
$$;

-- A calendar date of Xero's: its "2018-10-20T00:00:00" string when there is one, else the UTC
-- date of its JSON date.
CREATE FUNCTION xero_day(string text, value text) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(CASE WHEN string ~ '^\d{4}-\d{2}-\d{2}' THEN left(string, 10)::date END,
                  (xero_instant(value) AT TIME ZONE 'UTC')::date)
$$;

-- What finance needs, from the copy of the connected organisation, for a user in time zone `tz`
-- at instant `at` (the spec's day-boundary rules):
--   paymentsMonthToDate, paymentsYearToDate: receipts (ACCRECPAYMENT, not deleted) dated from the
--     1st of the user's month (of January) to the user's today; the instant is converted to the
--     zone directly (rule 3); payment dates are calendar dates and are compared as such;
--   aging: open receivables (AUTHORISED with an amount due) in six buckets by days overdue, the
--     user's today minus the due date: current (not yet due), 1-30, 31-60, 61-90, 91-120, over 120,
--     each {key, amount, invoices, maxDaysOverdue}; overdueInvoices: the ten most overdue with
--     their daysOverdue;
--   revenue: 12 calendar months, rolling, the last the month of the current UTC instant (rule 4),
--     oldest first, zero-filled: invoiced receivables (AUTHORISED or PAID) before tax, by invoice
--     date.
-- Amounts are in the organisation's currency, rounded to 2 places. {configured: false} without a
-- connection.
CREATE FUNCTION accounting_finance_json(tz text, at timestamptz) RETURNS json
LANGUAGE sql STABLE AS $$
  WITH c AS (SELECT tenant_id, base_currency FROM accounting_connection),
  today AS (SELECT (at AT TIME ZONE tz)::date AS d),
  receipts AS (
    SELECT p.payment_date, p.amount / nullif(p.currency_rate, 0) AS amount
    FROM accounting_payments p, c
    WHERE p.tenant_id = c.tenant_id AND p.payment_type = 'ACCRECPAYMENT' AND p.status IS DISTINCT FROM 'DELETED'
      AND p.payment_date >= date_trunc('year', (SELECT d FROM today))::date AND p.payment_date <= (SELECT d FROM today)),
  open AS (
    SELECT i.*, (SELECT d FROM today) - i.due_date AS days_overdue, i.amount_due / nullif(i.currency_rate, 0) AS due
    FROM accounting_invoices i, c
    WHERE i.tenant_id = c.tenant_id AND i.type = 'ACCREC' AND i.status = 'AUTHORISED' AND i.amount_due > 0),
  buckets(key, position, low, high) AS (
    VALUES ('current', 1, NULL::int, 0), ('1-30', 2, 1, 30), ('31-60', 3, 31, 60), ('61-90', 4, 61, 90),
           ('91-120', 5, 91, 120), ('over-120', 6, 121, NULL)),
  months AS (
    SELECT (date_trunc('month', at AT TIME ZONE 'UTC') - make_interval(months => n))::date AS first
    FROM generate_series(11, 0, -1) AS n)
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM c) THEN json_build_object('configured', false) ELSE json_build_object(
    'configured', true,
    'currency', (SELECT base_currency FROM c),
    'today', (SELECT d FROM today),
    'paymentsMonthToDate', (SELECT round(coalesce(sum(amount), 0), 2) FROM receipts
                            WHERE payment_date >= date_trunc('month', (SELECT d FROM today))::date),
    'paymentsYearToDate', (SELECT round(coalesce(sum(amount), 0), 2) FROM receipts),
    'aging', (SELECT json_agg(json_build_object('key', a.key, 'amount', a.amount, 'invoices', a.invoices,
                                                'maxDaysOverdue', a.max_days) ORDER BY a.position)
              FROM (SELECT b.key, b.position, round(coalesce(sum(o.due), 0), 2) AS amount, count(o.id) AS invoices,
                           greatest(coalesce(max(o.days_overdue), 0), 0) AS max_days
                    FROM buckets b
                    LEFT JOIN open o ON o.days_overdue >= coalesce(b.low, -2147483648)
                                    AND o.days_overdue <= coalesce(b.high, 2147483647)
                    GROUP BY b.key, b.position) a),
    'overdueInvoices', (SELECT coalesce(json_agg(json_build_object(
                          'id', o.id, 'number', o.number, 'contactName', o.contact_name, 'dueDate', o.due_date,
                          'amountDue', round(o.due, 2), 'daysOverdue', o.days_overdue)
                          ORDER BY o.days_overdue DESC, o.id), '[]'::json)
                        FROM (SELECT * FROM open WHERE days_overdue > 0 ORDER BY days_overdue DESC, id LIMIT 10) o),
    'revenue', (SELECT json_agg(json_build_object('month', to_char(m.first, 'YYYY-MM'), 'amount', round(coalesce((
                  SELECT sum(i.sub_total / nullif(i.currency_rate, 0)) FROM accounting_invoices i, c
                  WHERE i.tenant_id = c.tenant_id AND i.type = 'ACCREC' AND i.status IN ('AUTHORISED', 'PAID')
                    AND i.invoice_date >= m.first AND i.invoice_date < (m.first + interval '1 month')::date), 0), 2))
                  ORDER BY m.first)
                FROM months m)) END
$$;
