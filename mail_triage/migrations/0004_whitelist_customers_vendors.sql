-- Whitelisted senders (by address or whole domain) are logged `skipped` without a model call.
CREATE TABLE whitelist (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email_address text CHECK (email_address = lower(email_address)),
  domain        text CHECK (domain = lower(domain)),
  description   text NOT NULL DEFAULT '',
  added_by      text NOT NULL DEFAULT '',
  expires_at    timestamptz,
  is_active     boolean NOT NULL DEFAULT true,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT whitelist_names_a_sender CHECK (email_address IS NOT NULL OR domain IS NOT NULL)
);
-- At most one active entry for the same (address, domain): a duplicate POST is a 409.
CREATE UNIQUE INDEX whitelist_active_once
  ON whitelist (coalesce(email_address, ''), coalesce(domain, '')) WHERE is_active;
CREATE INDEX whitelist_active_address ON whitelist (email_address) WHERE is_active;
CREATE INDEX whitelist_active_domain ON whitelist (domain) WHERE is_active;

-- Known customer and vendor addresses and domains: they decide a sender's sender_type.
CREATE TABLE customers (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name          text NOT NULL DEFAULT '',
  email_address text UNIQUE CHECK (email_address = lower(email_address)),
  domain        text UNIQUE CHECK (domain = lower(domain)),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT customers_names_a_sender CHECK (email_address IS NOT NULL OR domain IS NOT NULL)
);

CREATE TABLE vendors (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name          text NOT NULL DEFAULT '',
  email_address text UNIQUE CHECK (email_address = lower(email_address)),
  domain        text UNIQUE CHECK (domain = lower(domain)),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT vendors_names_a_sender CHECK (email_address IS NOT NULL OR domain IS NOT NULL)
);
