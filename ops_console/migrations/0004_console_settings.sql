-- Administration settings of the console (issue 6).

-- Integrations an administrator can switch off. The effective disabled set is these rows with
-- disabled = true, together with the environment's INTEGRATIONS_DISABLED. Every change is
-- announced on the channel `integration_settings`, whoever makes it, so that each running
-- instance drops its cached view at once.
CREATE TABLE integration_settings (
  key          text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_]*$'),
  disabled     boolean NOT NULL DEFAULT false,
  reason       text CHECK (length(reason) <= 500),
  disabled_by  text,                -- e-mail of the administrator who disabled it
  disabled_at  timestamptz,
  updated_by   text,
  updated_at   timestamptz NOT NULL DEFAULT now()
);

INSERT INTO integration_settings (key) VALUES
  ('psa'), ('distributor'), ('mailsec'), ('mfa'), ('accounting'), ('endpointsec'), ('backup'),
  ('mailplatform'), ('rmm'), ('access_gateway'), ('gitforge'), ('agent'), ('analyzer');

CREATE FUNCTION announce_integration_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('integration_settings', coalesce(NEW.key, OLD.key));
  RETURN NULL;
END $$;

CREATE TRIGGER integration_settings_changed AFTER INSERT OR UPDATE OR DELETE ON integration_settings
  FOR EACH ROW EXECUTE FUNCTION announce_integration_settings();

-- Company scope, opt-out: a company without a row is in scope.
CREATE TABLE company_scope (
  company_id  bigint PRIMARY KEY REFERENCES companies (id) ON DELETE CASCADE,
  in_scope    boolean NOT NULL,
  note        text CHECK (length(note) <= 500),
  updated_by  text NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Kiosk and mobile display settings: each key holds an array of ids.
CREATE TABLE display_settings (
  key         text PRIMARY KEY CHECK (key IN (
                'kiosk_company_category_ids', 'kiosk_excluded_company_ids', 'kiosk_included_classification_ids',
                'mobile_company_category_ids', 'mobile_excluded_company_ids', 'mobile_included_classification_ids')),
  value       jsonb NOT NULL CHECK (jsonb_typeof(value) = 'array'),
  updated_by  text,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO display_settings (key, value) VALUES
  ('kiosk_company_category_ids', '[1]'), ('kiosk_excluded_company_ids', '[]'),
  ('kiosk_included_classification_ids', '[]'),
  ('mobile_company_category_ids', '[1]'), ('mobile_excluded_company_ids', '[]'),
  ('mobile_included_classification_ids', '[]');

-- A company as the scope page shows it: no row means in scope.
CREATE FUNCTION company_scope_json(c companies, s company_scope) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'company_id', c.id,
    'company_name', c.company_name,
    'is_active', c.is_active,
    'in_scope', coalesce(s.in_scope, true),
    'explicit', s.company_id IS NOT NULL,
    'note', s.note,
    'updated_by', s.updated_by,
    'updated_at', s.updated_at)
$$;
