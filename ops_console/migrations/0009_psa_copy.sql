-- The console's copy of the PSA (issue 17): every entity the views read, kept current by the
-- full and incremental sync, the reconciliation of stale tickets and the webhook intake
-- (ops_console/psa/). Ids are the PSA's own. Every synced row keeps synced_at (when the copy
-- last wrote it) and deleted_at (a soft delete: a Delete webhook, or a ticket the PSA no longer
-- returns). As in 0003, there are no foreign keys between synced tables: one pass may bring a
-- ticket before its company. Columns follow Autotask REST's field names in snake_case
-- (ops_console/psa/entities.cpp maps them; companies.classification_id holds `classification`).

CREATE TABLE tickets (
  id                        bigint PRIMARY KEY,
  ticket_number             text,
  title                     text,
  description               text,
  status                    integer,
  priority                  integer,
  queue_id                  integer,
  company_id                bigint,
  contact_id                bigint,
  assigned_resource_id      bigint,
  create_date               timestamptz,
  completed_date            timestamptz,
  last_activity_date        timestamptz,
  due_date_time             timestamptz,
  first_response_date_time  timestamptz,
  resolved_date_time        timestamptz,
  issue_type                integer,
  sub_issue_type            integer,
  source                    integer,
  contract_id               bigint,
  configuration_item_id     bigint,
  project_id                bigint,
  synced_at                 timestamptz NOT NULL DEFAULT now(),
  deleted_at                timestamptz
);
CREATE INDEX tickets_company ON tickets (company_id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_open ON tickets (status, queue_id) WHERE deleted_at IS NULL AND status <> 5;
CREATE INDEX tickets_activity ON tickets (last_activity_date DESC);
-- The reconciliation's selection: not deleted, not complete, oldest synced first.
CREATE INDEX tickets_stale ON tickets (synced_at, id) WHERE deleted_at IS NULL AND status IS DISTINCT FROM 5;

CREATE TABLE contacts (
  id                  bigint PRIMARY KEY,
  company_id          bigint,
  first_name          text,
  last_name           text,
  email_address       text,
  is_active           boolean,             -- Autotask sends 1 or 0
  last_activity_date  timestamptz,
  last_modified_date  timestamptz,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at          timestamptz
);
CREATE INDEX contacts_company ON contacts (company_id) WHERE deleted_at IS NULL;

CREATE TABLE resources (
  id          bigint PRIMARY KEY,
  first_name  text,
  last_name   text,
  email       text,
  user_name   text,
  is_active   boolean,
  synced_at   timestamptz NOT NULL DEFAULT now(),
  deleted_at  timestamptz
);

CREATE TABLE time_entries (
  id                bigint PRIMARY KEY,
  ticket_id         bigint,
  task_id           bigint,
  resource_id       bigint,
  date_worked       timestamptz,
  start_date_time   timestamptz,
  end_date_time     timestamptz,
  hours_worked      numeric(10, 4),
  summary_notes     text,
  last_modified_date_time timestamptz,
  synced_at         timestamptz NOT NULL DEFAULT now(),
  deleted_at        timestamptz
);
CREATE INDEX time_entries_ticket ON time_entries (ticket_id) WHERE deleted_at IS NULL;
CREATE INDEX time_entries_resource ON time_entries (resource_id, date_worked) WHERE deleted_at IS NULL;

CREATE TABLE projects (
  id                       bigint PRIMARY KEY,
  project_name             text,
  company_id               bigint,
  status                   integer,
  start_date_time          timestamptz,
  end_date_time            timestamptz,
  last_activity_date_time  timestamptz,
  synced_at                timestamptz NOT NULL DEFAULT now(),
  deleted_at               timestamptz
);

CREATE TABLE tasks (
  id                       bigint PRIMARY KEY,
  project_id               bigint,
  title                    text,
  status                   integer,
  assigned_resource_id     bigint,
  create_date_time         timestamptz,
  completed_date_time      timestamptz,
  last_activity_date_time  timestamptz,
  synced_at                timestamptz NOT NULL DEFAULT now(),
  deleted_at               timestamptz
);

CREATE TABLE contracts (
  id                      bigint PRIMARY KEY,
  company_id              bigint,
  contract_name           text,
  status                  integer,
  start_date              timestamptz,
  end_date                timestamptz,
  last_modified_date_time timestamptz,
  synced_at               timestamptz NOT NULL DEFAULT now(),
  deleted_at              timestamptz
);

CREATE TABLE configuration_items (
  id                  bigint PRIMARY KEY,
  company_id          bigint,
  reference_title     text,
  serial_number       text,
  is_active           boolean,
  last_modified_time  timestamptz,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at          timestamptz
);
CREATE INDEX configuration_items_company ON configuration_items (company_id) WHERE deleted_at IS NULL;

-- Picklist values the views label with: (entity, field, value), as the PSA's entityInformation
-- returns them. Company classifications stay in company_classifications (0003).
CREATE TABLE psa_picklists (
  entity        text NOT NULL,
  field         text NOT NULL,
  value         integer NOT NULL,
  label         text NOT NULL,
  is_active     boolean NOT NULL DEFAULT true,
  sort_order    integer NOT NULL DEFAULT 0,
  parent_value  integer,             -- a sub-issue type's issue type
  synced_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (entity, field, value)
);

CREATE TABLE tag_groups (
  id          bigint PRIMARY KEY,
  name        text,
  is_active   boolean,
  synced_at   timestamptz NOT NULL DEFAULT now(),
  deleted_at  timestamptz
);

CREATE TABLE tags (
  id            bigint PRIMARY KEY,
  tag_group_id  bigint,
  label         text,
  is_active     boolean,
  synced_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at    timestamptz
);

-- From the PSA (TicketTagAssociations). No foreign key on the ticket: a tagged ticket can be
-- older than the sync window, so the copy may not hold it.
CREATE TABLE ticket_tags (
  id          bigint PRIMARY KEY,
  ticket_id   bigint NOT NULL,
  tag_id      bigint NOT NULL,
  synced_at   timestamptz NOT NULL DEFAULT now(),
  deleted_at  timestamptz
);
CREATE INDEX ticket_tags_ticket ON ticket_tags (ticket_id) WHERE deleted_at IS NULL;

-- The console's own associations, set by signed-in users.
CREATE TABLE company_tags (
  company_id  bigint NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  tag_id      bigint NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  added_by    text NOT NULL,
  added_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, tag_id)
);
CREATE TABLE configuration_item_tags (
  configuration_item_id  bigint NOT NULL REFERENCES configuration_items (id) ON DELETE CASCADE,
  tag_id                 bigint NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  added_by               text NOT NULL,
  added_at               timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (configuration_item_id, tag_id)
);
CREATE TABLE contact_tags (
  contact_id  bigint NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  tag_id      bigint NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  added_by    text NOT NULL,
  added_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contact_id, tag_id)
);

-- Every run of every sync: the PSA's entities, the reconciliation, the classification sync, and
-- later the distributor's. counts holds what the run did ({fetched, upserted, deleted, ...}).
CREATE TABLE sync_history (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  entity_type  text NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('full', 'incremental', 'reconcile', 'classifications', 'distributor')),
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  status       text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
  counts       jsonb NOT NULL DEFAULT '{}',
  error        text
);
CREATE INDEX sync_history_recent ON sync_history (entity_type, started_at DESC, id DESC);

-- Where each entity's incremental sync resumes: the newest last-modified time it has seen.
CREATE TABLE sync_watermarks (
  entity_type    text PRIMARY KEY,
  modified_upto  timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
