#!/usr/bin/env python3
"""When bench/ops-console-morning's slowest requests came, and what the database and the PSA sync
were doing then: reads the directory of a run with --keep DIR and prints, per instance count,
times in seconds from the start of the counted window (negative: in the warm-up).

  bench/morning_timeline.py DIR [--routes /api/mobile/dashboard,/api/dashboard/overview]

- the sync runs that took over 200 ms (the first copies the fake's window);
- what the cluster logged from 20 s before the window: checkpoints, autovacuum and autoanalyze of
  the tables the callouts write, ANALYZE and VACUUM statements;
- the console connections made (a new backend plans each statement on first use);
- each route's eight slowest requests (latency@time), with, for the dashboards' statements the
  database logged (50 ms or more), the age of the backend that ran them;
- the UI's mean and slowest latency per 5 s, and the 100 ms spans in which the callouts' median
  latency was over 25 ms (something held every writer up).
"""
import argparse
import collections
import datetime
import re
import statistics

HOT_TABLES = ("tickets", "open_ticket_counts", "ticket_counts", "webhook_events")
LOG_LINE = re.compile(r"(\S+ \S+) UTC \[(\d+)\] (\S*) ?LOG:  (.*)")


def unix_ms(stamp):
    t = datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
    return t.timestamp() * 1000


def read_log(path):
    """(events, born, slow): notable lines, backend start times by pid, dashboard statements."""
    events, born, slow = [], {}, []
    hot = "|".join(HOT_TABLES)
    for line in open(path, errors="replace"):
        m = LOG_LINE.match(line)
        if not m:
            continue
        t, pid, app, msg = unix_ms(m.group(1)), m.group(2), m.group(3), m.group(4)
        if msg.startswith("connection authorized") and "application_name=console" in msg:
            born[pid] = t
        elif re.search(r"checkpoint (starting|complete)|statement: (ANALYZE|VACUUM)", msg) or re.search(
            rf'automatic (vacuum|analyze) of table "\w+\.public\.({hot})"', msg
        ):
            events.append((t, f"{app} {msg}".strip()[:150]))
        elif s := re.match(r"duration: ([\d.]+) ms  execute \S+: SELECT (\w+)", msg):
            slow.append((t, pid, float(s.group(1)), s.group(2)))
    return events, born, slow


def report(d, n, warmup_ms, events, born, slow, routes):
    rows = [line.rstrip("\n").split("\t") for line in open(f"{d}/trace{n}.load")]
    began = min(float(r[0]) for r in rows)  # the load's start, the warm-up's when there is one
    t0 = began + warmup_ms  # the window's start
    t1 = max(float(r[0]) for r in rows)

    def s(t):  # seconds from the window's start
        return (t - t0) / 1000

    runs = [line.split("|") for line in open(f"{d}/runs{n}")]
    print(f"== {n} instance(s)")
    long_runs = [
        f"{s(int(r[1])):.1f}+{(int(r[2]) - int(r[1])) / 1000:.1f}" for r in runs if int(r[2]) - int(r[1]) > 200
    ]
    print("  sync runs over 200 ms (start+seconds):", " ".join(long_runs) or "none")
    for t, what in events:
        if began - 20000 <= t <= t1:
            print(f"  {s(t):6.1f} {what}")
    made = sorted(s(t) for t in born.values() if began - 5000 <= t <= t1)
    print(f"  console connections made: {len(made)}:", " ".join(f"{x:.1f}" for x in made))
    ui = [r for r in rows if r[1] == "ui"]
    for route in routes:
        worst = sorted((r for r in ui if r[5] == route), key=lambda r: -float(r[3]))[:8]
        print(f"  {route}:", " ".join(f"{float(r[3]):.0f}@{s(float(r[0])):.1f}" for r in worst))
    for t, pid, ms, fn in sorted(slow, key=lambda x: -x[2]):
        if began <= t <= t1 + 1000 and fn in ("mobile_dashboard_json", "dashboard_overview_json") and pid in born:
            print(f"    {s(t):5.1f} {fn} {ms:.0f} ms, backend {(t - born[pid]) / 1000:.1f} s old")
    by5 = collections.defaultdict(list)
    for r in ui:
        by5[int(s(float(r[0])) // 5)].append(float(r[3]))
    means = " ".join(f"{statistics.mean(v):.0f}" for _, v in sorted(by5.items()))
    print("  UI per 5 s from", min(by5) * 5, "s, mean:", means)
    print("  UI per 5 s, slowest: ", " ".join(f"{max(v):.0f}" for _, v in sorted(by5.items())))
    by100 = collections.defaultdict(list)
    for r in rows:
        if r[1] == "callout":
            by100[int(s(float(r[0])) * 10)].append(float(r[3]))
    held = [f"{k / 10:.1f}:{statistics.median(v):.0f}" for k, v in sorted(by100.items()) if statistics.median(v) > 25]
    print(f"  callouts held up (100 ms spans, median over 25 ms): {len(held)}:", " ".join(held))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir")
    p.add_argument("--routes", default="/api/mobile/dashboard,/api/dashboard/overview")
    a = p.parse_args()
    try:
        warmup_ms = float(open(f"{a.dir}/warmup").read()) * 1000
    except FileNotFoundError:
        warmup_ms = 0
    events, born, slow = read_log(f"{a.dir}/server.log")
    for n in (1, 2):
        try:
            report(a.dir, n, warmup_ms, events, born, slow, a.routes.split(","))
        except FileNotFoundError:
            pass


if __name__ == "__main__":
    main()
