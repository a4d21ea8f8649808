# shellcheck shell=bash
# Shared helpers for the scripts in this directory. Source it; do not run it.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Provides: ROOT, PG_BINDIR, log, warn, die, ensure_packages, build, build_release,
# free_port, random_secret, and for scripts/test and scripts/fuzz: FUZZ_RUNS, FUZZ_SECONDS,
# fuzz_binaries, fuzz_target.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT

PG_BINDIR="${PG_BINDIR:-/usr/lib/postgresql/15/bin}"
export PG_BINDIR

# Debian (bookworm) packages needed to build, test and run the project.
# Keep this the single source of truth; add new packages here.
REQUIRED_PACKAGES=(
  build-essential cmake ninja-build pkg-config g++
  libboost1.74-dev libboost-program-options1.74-dev
  nlohmann-json3-dev libcurl4-openssl-dev libspdlog-dev libfmt-dev
  libsodium-dev libssl-dev libpq-dev libgtest-dev libgmock-dev
  libgmime-3.0-dev
  postgresql-15 postgresql-contrib-15
  wrk
  clang-16 lld-16 libfuzzer-16-dev libclang-rt-16-dev
  clang-format-16 python3 jq
  curl ca-certificates git
  # promtool, which the service contract runs on a scrape (docs/metrics.md); 96 MB, about 10 s
  # to install. On a machine booted with systemd the package also enables a Prometheus server
  # on :9090 (`systemctl disable --now prometheus` if unwanted).
  prometheus
)

# Only scripts/test needs these: Debian's Chromium for the headless-browser tests (driven by
# playwright-core from npm, with the machine's Node.js; tests/browser/run).
BROWSER_TEST_PACKAGES=(chromium)

# scripts/package (dpkg-shlibdeps, strip) and its test (PackageTest: lintian, systemd-analyze, and
# systemd-sysusers, which the packages' postinst runs); scripts/test installs them.
PACKAGING_PACKAGES=(dpkg-dev binutils lintian systemd)

log() { printf '==> %s\n' "$*" >&2; }
warn() { printf '==> WARNING: %s\n' "$*" >&2; }
die() {
  printf '==> ERROR: %s\n' "$*" >&2
  exit 1
}

# Prints the names of installed packages and of the virtual packages they
# provide, one per line. (postgresql-contrib-15, for instance, is a virtual
# package provided by postgresql-15 on bookworm, so a plain status query on it
# always says "not installed".)
installed_package_names() {
  dpkg-query -W -f='${Status}\t${Package}\t${Provides}\n' 2>/dev/null |
    awk -F'\t' '$1 ~ / installed$/ {
      print $2
      n = split($3, provides, ",")
      for (i = 1; i <= n; i++) {
        name = provides[i]
        sub(/\(.*/, "", name)          # drop a version constraint
        gsub(/[[:space:]]/, "", name)
        if (name != "") print name
      }
    }'
}

# Prints the packages of REQUIRED_PACKAGES, and of the arguments, that are not installed.
missing_packages() {
  local -A installed=()
  local name
  while IFS= read -r name; do
    installed[$name]=1
  done < <(installed_package_names)
  for name in "${REQUIRED_PACKAGES[@]}" "$@"; do
    [[ -n "${installed[$name]:-}" ]] || printf '%s\n' "$name"
  done
}

# Installs any missing package of REQUIRED_PACKAGES and of the arguments. Does
# nothing (not even apt-get update) when everything is already there. The
# explicit "|| return" keep failures fatal when the caller tests the result.
ensure_packages() {
  local -a missing
  mapfile -t missing < <(missing_packages "$@")
  ((${#missing[@]} > 0)) || return 0

  local -a as_root=()
  if ((EUID != 0)); then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      as_root=(sudo -n)
    else
      die "missing Debian packages: ${missing[*]}
    Install them as root, then run this again:
      apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
    fi
  fi
  log "Installing missing Debian packages: ${missing[*]}"
  "${as_root[@]}" apt-get update || return
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}" || return
}

# Node.js and npm: the console's web UI takes its libraries from npm (ops_console/ui), and the
# browser tests are driven from Node. Debian's packages when the machine has neither.
ensure_node() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && return 0
  ensure_packages nodejs npm
}

# The UI's pinned libraries (ops_console/ui/package-lock.json), which the build compiles into
# ops-console: installed when missing or older than the lock file.
ensure_ui_packages() {
  local ui=$ROOT/ops_console/ui
  [[ -f $ui/node_modules/.package-lock.json && ! $ui/package-lock.json -nt $ui/node_modules/.package-lock.json ]] &&
    return 0
  ensure_node || return
  log "Installing the web UI's libraries (npm ci in ops_console/ui)"
  (cd "$ui" && npm ci --no-audit --no-fund >/dev/null) || return
}

# build [DIR] [EXTRA CMAKE ARGS...]
# Configures (cheap when nothing changed) and builds DIR (default $ROOT/build).
# The explicit "|| return" keep failures fatal even when the caller tests the
# result (if build ...), which disables set -e.
build() {
  local dir="${1:-$ROOT/build}"
  shift || true
  ensure_ui_packages || return
  log "Configuring $dir"
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" || return
  log "Building $dir"
  # BUILD_TARGETS (space-separated): only those, and what they need; unset: everything.
  local -a targets=()
  [[ -z "${BUILD_TARGETS:-}" ]] || read -r -a targets <<<"$BUILD_TARGETS"
  cmake --build "$dir" -j "${JOBS:-$(nproc)}" ${targets[@]+--target "${targets[@]}"} || return
}

# build_release [EXTRA CMAKE ARGS...]: build/ as the demo, the benchmarks and scripts/test
# use it: the optimised binaries and the service contract's tests, not the whole suite (which
# scripts/test runs under the sanitizers in build-asan/; docs/testing.md).
build_release() {
  build "$ROOT/build" -DALL_TESTS=OFF "$@"
}

# True if something accepts TCP connections on 127.0.0.1:PORT.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# free_port [START]: prints the first port >= START (default: random in 20000-31999, below Linux's
# ephemeral range, 32768-60999, where an outgoing connection may take the port between this check
# and the bind: a soak's restarted instance once failed so) on which nothing listens on 127.0.0.1.
free_port() {
  local port="${1:-$((20000 + RANDOM % 12000))}"
  local tries
  for ((tries = 0; tries < 1000 && port <= 65535; tries++, port++)); do
    if ! port_in_use "$port"; then
      printf '%s\n' "$port"
      return 0
    fi
  done
  die "no free TCP port found on 127.0.0.1 starting from ${1:-random}"
}

# A random alphanumeric secret (about 24 characters).
random_secret() {
  head -c 18 /dev/urandom | base64 | tr -d '/+='
}

# ---- fuzzing (scripts/test's bounded runs, scripts/fuzz's campaign) ---------------------------

# The bounds of one target's run: libFuzzer stops at whichever comes first. scripts/test's
# defaults; scripts/fuzz --long sets 10,000,000 runs and 600 s.
FUZZ_RUNS=200000
FUZZ_SECONDS=20

# Prints the built libFuzzer targets, build-fuzz/fuzz/fuzz_*, one path a line, sorted.
fuzz_binaries() {
  [[ -d "$ROOT/build-fuzz/fuzz" ]] || return 0
  find "$ROOT/build-fuzz/fuzz" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort
}

# fuzz_target BIN SCRATCH [LIBFUZZER ARGS...]: runs one libFuzzer target for FUZZ_RUNS runs or
# FUZZ_SECONDS seconds on a scratch copy of its committed corpus (fuzz/corpus/<name>/, copied to
# SCRATCH/corpus/fuzz_<name>/, which keeps what the run found). Output goes to
# build-fuzz/logs/fuzz_<name>.log; a crash's input to build-fuzz/artifacts/fuzz_<name>-*.
# Returns the target's status (non-zero: a crash, a leak, a timeout or a failed check).
fuzz_target() {
  local bin="$1" scratch="$2" name seeds corpus
  shift 2
  name="$(basename "$bin")"
  seeds="$ROOT/fuzz/corpus/${name#fuzz_}"
  corpus="$scratch/corpus/$name"
  mkdir -p "$corpus" "$ROOT/build-fuzz/logs" "$ROOT/build-fuzz/artifacts"
  if [[ -d "$seeds" ]]; then
    cp -R "$seeds/." "$corpus/"
  fi
  # An undefined-behaviour report is a failure, as under ctest (UBSan alone would go on).
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    "$bin" -runs="$FUZZ_RUNS" -max_total_time="$FUZZ_SECONDS" \
    -artifact_prefix="$ROOT/build-fuzz/artifacts/$name-" "$@" \
    "$corpus" >"$ROOT/build-fuzz/logs/$name.log" 2>&1
}
