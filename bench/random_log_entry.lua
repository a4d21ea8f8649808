-- wrk script: GET /api/v1/log/<id> for random seeded rows (row g has id md5(g)::uuid; the ids are
-- listed one per line in $BENCH_IDS), with the bearer key from $BENCH_API_KEY.
local ids = {}
for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = line end
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_API_KEY")
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/api/v1/log/" .. ids[math.random(1, #ids)])
end
