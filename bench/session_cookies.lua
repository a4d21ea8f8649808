-- wrk script: GET the given path with a session cookie from the file $BENCH_COOKIES (one token a
-- line), each request the next cookie in turn: many signed-in users, not one.
local cookies = {}
init = function()
  for line in io.lines(os.getenv("BENCH_COOKIES")) do cookies[#cookies + 1] = line end
end

local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, { Cookie = "ops_session=" .. cookies[(n % #cookies) + 1] })
end
