-- wrk script: POST distinct GitHub push deliveries (their own X-GitHub-Delivery, three new
-- commits each) to /api/webhooks/gitforge. Unsigned: the bench runs the console without
-- GITFORGE_WEBHOOK_SECRET (wrk's Lua has no HMAC).
local threads = 0

setup = function(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-GitHub-Event"] = "push"
wrk.headers["User-Agent"] = "GitHub-Hookshot/bench"

local run = tonumber(os.getenv("BENCH_RUN") or "0")  -- ids differ between the runs of one bench

local function commit(n)
  local id = string.format("%02x%06x%08x%024x", run, thread_id or 0, counter, n)
  return string.format(
    '{"id":"%s","message":"Change %d of push %d\\n\\nDetails.","timestamp":"2026-11-23T10:00:00+00:00",' ..
    '"url":"https://github.com/msp/bench/commit/%s","author":{"name":"Bench","email":"bench@msp.example"}}',
    id, n, counter, id)
end

request = function()
  counter = counter + 1
  wrk.headers["X-GitHub-Delivery"] = string.format("bench-%d-%d-%d", run, thread_id or 0, counter)
  local body = string.format(
    '{"ref":"refs/heads/main","repository":{"name":"bench","full_name":"msp/bench"},' ..
    '"pusher":{"name":"bench","email":"bench@msp.example"},"commits":[%s,%s,%s]}',
    commit(1), commit(2), commit(3))
  return wrk.format(nil, nil, nil, body)
end
