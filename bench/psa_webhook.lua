-- wrk script: POST distinct Autotask callouts (Update of a random ticket that the copy holds, its
-- id read from the file $BENCH_IDS, one per line) to /api/webhooks/psa. Every request carries its
-- own SequenceNumber (thread and counter), so each is a new event and should be one new row.
local threads = 0

setup = function(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

local ids = {}
init = function()
  for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = tonumber(line) end
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
    ids[math.random(1, #ids)], math.random(1, 8), math.random(1, 4), sequence)
  return wrk.format(nil, nil, nil, body)
end
