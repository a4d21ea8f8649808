-- wrk script: GET /accounts/<random aid> over the accounts pgbench -i made (scale × 100000).
local accounts = tonumber(os.getenv("BENCH_ACCOUNTS") or "100000")
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/accounts/" .. math.random(1, accounts))
end
