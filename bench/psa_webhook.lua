-- wrk script: POST distinct Autotask callouts (Update of a random ticket between $BENCH_LOW and
-- $BENCH_HIGH, which the copy holds) to /api/webhooks/psa. Every request carries its own
-- SequenceNumber (thread and counter), so each is a new event and should be one new row.
local low = tonumber(os.getenv("BENCH_LOW"))
local high = tonumber(os.getenv("BENCH_HIGH"))
local threads = 0

setup = function(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "Autotask-Webhooks/bench"

request = function()
  counter = counter + 1
  local sequence = (thread_id or 0) * 1000000000 + counter
  local body = string.format(
    '{"Action":"Update","Guid":"bench-webhook","EntityType":"Ticket","Id":%d,' ..
    '"Fields":{"Status":"%d","Priority":"%d"},"EventTime":"2026-11-20T10:00:00Z","SequenceNumber":%d}',
    math.random(low, high), math.random(1, 8), math.random(1, 4), sequence)
  return wrk.format(nil, nil, nil, body)
end
