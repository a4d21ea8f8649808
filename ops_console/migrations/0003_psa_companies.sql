-- The PSA's companies, their categories and their classifications (issue 6), in the shape the
-- PSA sync fills later (Autotask REST: Companies, CompanyCategories, and the picklist of
-- Companies.classification). Ids are the PSA's own. There are no foreign keys between synced
-- tables: one sync pass may bring a company before its category.
CREATE TABLE company_categories (
  id         bigint PRIMARY KEY,
  name       text NOT NULL,
  nickname   text,
  is_active  boolean NOT NULL DEFAULT true,
  synced_at  timestamptz NOT NULL DEFAULT now()
);

-- The picklist values of Companies.classification: {value, label, isActive, sortOrder}.
CREATE TABLE company_classifications (
  id          bigint PRIMARY KEY,
  label       text NOT NULL,
  is_active   boolean NOT NULL DEFAULT true,
  sort_order  integer NOT NULL DEFAULT 0,
  synced_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE companies (
  id                   bigint PRIMARY KEY,
  company_name         text NOT NULL,
  company_number       text,
  company_type         integer,
  company_category_id  bigint,
  classification_id    bigint,
  is_active            boolean NOT NULL DEFAULT true,
  phone                text,
  web_address          text,
  city                 text,
  owner_resource_id    bigint,
  parent_company_id    bigint,
  create_date          timestamptz,
  last_activity_date   timestamptz,
  synced_at            timestamptz NOT NULL DEFAULT now(),
  deleted_at           timestamptz             -- a Delete webhook soft-deletes
);
CREATE INDEX companies_name ON companies (lower(company_name), id) WHERE deleted_at IS NULL;
CREATE INDEX companies_category ON companies (company_category_id);
