-- Runs of the ticket analyzer's pipelines (issue 6 reads them; the analyzer writes them later).
-- A run "fell back" when its output_data has the top-level key user_route_fallback.
CREATE TABLE pipeline_executions (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pipeline_id   bigint NOT NULL,
  ticket_id     bigint,
  status        text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  started_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz,
  input_data    jsonb,
  output_data   jsonb,
  error         text
);
CREATE INDEX pipeline_executions_recent ON pipeline_executions (started_at DESC, id DESC);
CREATE INDEX pipeline_executions_pipeline ON pipeline_executions (pipeline_id, started_at DESC, id DESC);
