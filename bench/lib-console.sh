# shellcheck shell=bash
# The set-up that bench/ops-console-morning and bench/soak share: a private cluster with an
# ops_console database, the PSA copy seeded, signed-in users, the sandbox, ops-console instances on
# one database, a PSA sync kept under way. Source it after scripts/lib.sh; it works on these
# globals: work (the run's directory), pids (processes the exit trap stops), and sets the others
# each function names.

# console_cluster: a cluster in $work/data with the ops_console database, migrated. Sets pg_port,
# password, db_url and exports PGPASSWORD.
console_cluster() {
  password=$(random_secret)
  pg_port=$(free_port)
  log "cluster on port $pg_port"
  "$ROOT/scripts/pg-cluster" init "$work/data" "$pg_port" "$password" >/dev/null
  "$ROOT/scripts/pg-cluster" start "$work/data" >/dev/null
  export PGPASSWORD=$password
  psql -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -qc "CREATE DATABASE ops_console" >/dev/null
  db_url="postgresql://postgres:$password@127.0.0.1:$pg_port/ops_console"
  DATABASE_URL=$db_url "$ROOT/build/bin/ops-console" migrate >/dev/null 2>&1
}

q() { psql "$db_url" -qtAc "$1"; }

# seed_console TICKETS PER_DAY ANALYSES: the PSA copy (seed_psa_copy.sql) and analyses of the newest,
# written back to disk (a checkpoint).
seed_console() {
  log "seeding $1 tickets"
  psql "$db_url" -q -v ON_ERROR_STOP=1 -v total="$1" -v per_day="$2" -f "$ROOT/bench/seed_psa_copy.sql" >/dev/null
  q "INSERT INTO analyses (ticket_id, status, model, category, urgency, sentiment, confidence, summary, created_at, completed_at)
     SELECT id, 'succeeded', 'bench', (ARRAY['network', 'email', 'hardware', 'access'])[1 + id % 4],
            (ARRAY['low', 'medium', 'high'])[1 + id % 3], 'neutral', 0.8, 'Summary of ticket ' || id,
            create_date + interval '5 minutes', create_date + interval '6 minutes'
     FROM tickets ORDER BY id DESC LIMIT $3"
  q "VACUUM ANALYZE analyses"
  # The seed wrote about a gigabyte of WAL: without this, the checkpoints it set off write its pages
  # back during the load's first seconds, which a copy made days before a morning does not do.
  q "CHECKPOINT"
}

# make_users U: U users with one password (user_password): the first made as an operator would,
# the others copy its hash; in four time zones.
make_users() {
  user_password=$(random_secret)
  printf '%s\n' "$user_password" | DATABASE_URL=$db_url "$ROOT/build/bin/ops-console" create-user \
    --email user1@msp.example --name "User 1" --password-stdin >/dev/null
  q "INSERT INTO users (email, name, password_hash)
     SELECT 'user' || n || '@msp.example', 'User ' || n, (SELECT password_hash FROM users WHERE id = 1)
     FROM generate_series(2, $1) n"
  q "UPDATE users SET timezone = (ARRAY['UTC', 'Europe/Berlin', 'Pacific/Auckland', 'America/New_York'])[1 + id % 4]"
}

# start_sandbox K: the sandbox, its Autotask fake holding K tickets. Sets sandbox (its URL).
start_sandbox() {
  local port
  port=$(free_port)
  PORT=$port LOG_LEVEL=warn "$ROOT/build/bin/sandbox" serve >"$work/sandbox.log" 2>&1 &
  pids+=($!)
  sandbox="http://127.0.0.1:$port"
  for _ in $(seq 50); do curl -fs "$sandbox/healthz" >/dev/null && break; sleep 0.1; done
  curl -fs -X POST -H 'Content-Type: application/json' \
    -d "{\"seed\": 7, \"tickets\": $1, \"time_entries\": 3000}" "$sandbox/_sandbox/autotask/seed" >/dev/null
}

# wait_ready URL LOG: until URL/readyz answers 2xx (10 s at most), or dies with LOG's tail.
wait_ready() {
  for _ in $(seq 100); do curl -fs "$1/readyz" >/dev/null && return 0; sleep 0.1; done
  die "$1 does not answer: $(tail -5 "$2")"
}

# start_console I PORT: ops-console instance I on PORT (its log $work/console$I.log, appended to),
# on $db_url, the PSA being the sandbox's fake (webhook_secret signs the callouts), no scheduled
# sync, no analyzer; sets console_pid. Settings the caller exports (GITFORGE_WEBHOOK_SECRET) pass.
start_console() {
  # application_name tells the instances' connections apart in pg_stat_activity.
  DATABASE_URL="$db_url?application_name=console$1" PORT=$2 METRICS_ADDRESS=127.0.0.1:$(free_port) ACCESS_LOG=false LOG_LEVEL=warn \
    ANALYZER_WORKERS=0 LOGIN_DELAY_MS=0 \
    PSA_BASE_URL="$sandbox/autotask/atservicesrest/" PSA_USERNAME=api@msp.example PSA_SECRET=sandbox-secret \
    PSA_INTEGRATION_CODE=sandbox-integration PSA_SYNC_INTERVAL_MINUTES=0 PSA_WEBHOOK_SECRET=$webhook_secret \
    "$ROOT/build/bin/ops-console" serve >>"$work/console$1.log" 2>&1 &
  # shellcheck disable=SC2034  # the caller's
  console_pid=$!
  pids+=($!)
  wait_ready "http://127.0.0.1:$2" "$work/console$1.log"
}

# sign_in_all URL U: every user signs in on URL (sessions are the database's); tokens to $work/cookies.
sign_in_all() {
  local i
  : >"$work/cookies"
  for i in $(seq "$2"); do
    curl -fs -c "$work/jar" -H 'Content-Type: application/json' \
      -d "{\"email\":\"user$i@msp.example\",\"password\":\"$user_password\"}" "$1/api/auth/login" >/dev/null
    awk '$6 == "ops_session" {print $7}' "$work/jar" >>"$work/cookies"
  done
}

# keep_syncing URL [TRACE]: a PSA sync under way all the time: started again every second, which
# starts one whenever the last one ended. With TRACE, a line per request as morning-load's --trace
# (class sync).
keep_syncing() {
  local out
  while :; do
    out=$(curl -s -o /dev/null -m 30 -w '%{http_code} %{time_total}' -X POST "$1/api/sync/incremental" || true)
    [ -z "${2:-}" ] || trace_line "$2" sync "$out"
    sleep 1
  done
}

# trace_line FILE CLASS "CODE SECONDS" [KEY]: one line as morning-load's --trace writes, for a
# request curl made (-w '%{http_code} %{time_total}') that ended now.
trace_line() {
  local code=${3% *} seconds=${3#* } now
  now=$(date +%s%3N)
  awk -v now="$now" -v cls="$2" -v code="${code:-0}" -v s="${seconds:-0}" -v key="${4:--}" \
    'BEGIN { printf "%.0f\t%s\t%d\t%.1f\t0\t%s\n", now - s * 1000, cls, code, s * 1000, key }' >>"$1"
}
