#!/usr/bin/env python3
"""The report of bench/soak: reads the run's directory and prints Markdown; exits 1 when a "must"
fails (the figures are printed all the same).

  soak_report.py WORK --begin MS --end MS --warmup S

WORK holds (bench/soak writes them):
  trace.load, trace.sync, trace.runs, trace.probes  a request a line: sent (Unix ms), class, status
                         (0: no answer), latency ms, target, key (morning_load.cpp's --trace)
  faults                 name, start ms, end ms
  samples                ms, process, pid, VmRSS kB, open descriptors, threads
  alive                  "<process> <pid> alive|gone" at the end
  connections            database, state, connections, longest in that state (s) at the end
  connection-samples     ms, database, connections, of them busy for more than 10 s (every 10 s)
  activity               ms, database, application_name, state, idle s, statement: each connection
  sessions               database, sessions opened, abandoned, fatal, killed (pg_stat_database)
  stored.callouts, stored.pushes   key, rows stored under it
  mail.fake              the ids of every message the Graph fake holds (any folder, deleted too)
  mail.log               email_log: message id, status, rows of that message id
"""
import statistics
import argparse
import os
import sys

IN_FAULT_AFTER_MS = 10_000  # a request sent up to 10 s after a fault's end is still in its window
CLEAN_SECONDS = 5  # recovered: this many consecutive seconds in which every request succeeded
FREEZE_INTERACTIVE_MS = 4500
FREEZE_READYZ_MS = 2500
CLASSES = ["ui", "callout", "push", "run", "sync", "probe", "readyz"]
CLASS_NAMES = {
    "ui": "UI reads (morning-load's users)",
    "callout": "PSA callouts",
    "push": "gitforge pushes",
    "run": "processing runs",
    "sync": "PSA sync starts",
    "probe": "probes: interactive route",
    "readyz": "probes: /readyz",
}
RECOVERY_CLASSES = ["ui", "callout", "push", "probe", "readyz", "run"]


def rows(work, name):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def percentile(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def ms(v):
    return "—" if v is None else f"{v:.0f} ms" if v >= 10 else f"{v:.1f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--begin", type=int, required=True)
    ap.add_argument("--end", type=int, required=True)
    ap.add_argument("--warmup", type=int, default=60)
    a = ap.parse_args()
    work, begin, end = a.work, a.begin, a.end

    requests = []  # (sent ms, class, status, latency ms, target, key)
    for name in ("trace.load", "trace.sync", "trace.runs", "trace.probes"):
        for r in rows(work, name):
            if len(r) >= 6:
                requests.append((int(r[0]), r[1], int(r[2]), float(r[3]), r[4], r[5]))
    requests.sort()
    faults = [(r[0], int(r[1]), int(r[2])) for r in rows(work, "faults")]
    musts = []  # (what, held)

    def in_fault(t):
        return any(s <= t < e + IN_FAULT_AFTER_MS for _, s, e in faults)

    # 1. Requests by outcome, in and out of the fault windows.
    print("**Requests by outcome** (in a fault's window: sent between its start and 10 s after its end; "
          "p50/p99 over the answered requests)")
    print()
    print("| class | window | requests | 2xx | 503 | other | no answer | p50 | p99 | max |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for cls in CLASSES:
        for window, pick in (("out of faults", False), ("in faults", True)):
            sel = [r for r in requests if r[1] == cls and in_fault(r[0]) == pick]
            if not sel:
                continue
            ok = sum(1 for r in sel if 200 <= r[2] <= 299)
            s503 = sum(1 for r in sel if r[2] == 503)
            none = sum(1 for r in sel if r[2] == 0)
            other = len(sel) - ok - s503 - none
            lat = [r[3] for r in sel if r[2] != 0]
            print(f"| {CLASS_NAMES[cls]} | {window} | {len(sel)} | {ok} | {s503} | {other} | {none} | "
                  f"{ms(percentile(lat, 0.5))} | {ms(percentile(lat, 0.99))} | {ms(max(lat) if lat else None)} |")
    others = {}
    for r in requests:
        if r[2] != 0 and not 200 <= r[2] <= 299 and r[2] != 503:
            others[(r[1], r[2])] = others.get((r[1], r[2]), 0) + 1
    if others:
        print()
        print("Other statuses: " + ", ".join(f"{c} {s}: {n}" for (c, s), n in sorted(others.items())) + ".")

    # 2. Each fault: what it cost and when each class was clean again.
    print()
    # A class's share of failures outside the fault windows: what "recovered" comes back to.
    baseline = {}
    for cls in RECOVERY_CLASSES:
        sel = [r for r in requests if r[1] == cls and not in_fault(r[0])]
        baseline[cls] = sum(1 for r in sel if not 200 <= r[2] <= 299) / len(sel) if sel else 0.0
    print(f"**Faults** (times from the load's start; recovered: from the fault's end to the first {CLEAN_SECONDS} "
          "seconds in which the class's requests failed no more often than outside the fault windows (share of "
          "failures outside: " + ", ".join(f"{c} {100 * baseline[c]:.1f} %" for c in RECOVERY_CLASSES if c != "run") +
          "), 0 s: at once; processing runs: to the end of the first run started after the fault that answered 2xx)")
    print()
    print("| fault | from | to | failed in its window | " + " | ".join(f"recovered: {c}" for c in RECOVERY_CLASSES) + " |")
    print("|---|---|---|---|" + "---|" * len(RECOVERY_CLASSES))
    for i, (name, s, e) in enumerate(faults):
        horizon = faults[i + 1][1] if i + 1 < len(faults) else end
        window = [r for r in requests if s <= r[0] < e + IN_FAULT_AFTER_MS]
        failed = sum(1 for r in window if not 200 <= r[2] <= 299 and r[1] != "sync")
        cells = []
        for cls in RECOVERY_CLASSES:
            sel = [r for r in requests if r[1] == cls and e <= r[0] < horizon]
            if cls == "run":
                good = [r for r in sel if 200 <= r[2] <= 299]
                cells.append(f"{max(0.0, (good[0][0] + good[0][3] - e) / 1000):.1f} s" if good else "**not before the next**")
                continue
            sent, bad = {}, {}
            for r in sel:
                sec = (r[0] - e) // 1000
                sent[sec] = sent.get(sec, 0) + 1
                bad[sec] = bad.get(sec, 0) + (not 200 <= r[2] <= 299)
            last = (horizon - e) // 1000
            found = None
            for sec in range(0, last - CLEAN_SECONDS + 1):
                n = sum(sent.get(x, 0) for x in range(sec, sec + CLEAN_SECONDS))
                failed_n = sum(bad.get(x, 0) for x in range(sec, sec + CLEAN_SECONDS))
                if n and failed_n <= baseline[cls] * n:
                    found = sec
                    break
            cells.append(f"{found} s" if found is not None else ("—" if not sel else "**not before the next**"))
        print(f"| {name} | {(s - begin) / 1000:.0f} s | {(e - begin) / 1000:.0f} s | {failed} | " + " | ".join(cells) + " |")

    # 3. The freeze's deadlines.
    for name, s, e in faults:
        if name != "pg-freeze":
            continue
        during = [r for r in requests if s <= r[0] < e]
        inter = [r for r in during if r[1] in ("ui", "probe")]
        ready = [r for r in during if r[1] == "readyz"]
        imax = max((r[3] for r in inter), default=0.0)
        over = sum(1 for r in inter if r[3] > FREEZE_INTERACTIVE_MS)
        i50 = percentile([r[3] for r in inter], 0.5) or 0.0
        rmax = max((r[3] for r in ready), default=0.0)
        i503 = sum(1 for r in inter if r[2] == 503)
        r503 = sum(1 for r in ready if r[2] == 503)
        print()
        print(f"**During the freeze** ({(e - s) / 1000:.0f} s): interactive requests (UI reads and probes) "
              f"sent {len(inter)}, answered 503 {i503}, 2xx {sum(1 for r in inter if 200 <= r[2] <= 299)}, "
              f"no answer {sum(1 for r in inter if r[2] == 0)}, p50 {i50 / 1000:.2f} s, slowest {imax / 1000:.2f} s, "
              f"{over} slower than the deadline of {FREEZE_INTERACTIVE_MS / 1000} s; /readyz probes {len(ready)}, 503 {r503}, "
              f"slowest {rmax / 1000:.2f} s (deadline {FREEZE_READYZ_MS / 1000} s).")
        slow = sorted((r for r in inter if r[3] > FREEZE_INTERACTIVE_MS), key=lambda r: -r[3])[:5]
        if slow:
            print("Slowest interactive: " + "; ".join(f"{r[1]} {r[5]} on {r[4]}: {r[2]} after {r[3]:.0f} ms" for r in slow) + ".")
        musts.append((f"interactive answers within {FREEZE_INTERACTIVE_MS / 1000} s during the freeze ({imax / 1000:.2f} s)",
                      imax <= FREEZE_INTERACTIVE_MS))
        musts.append((f"/readyz within {FREEZE_READYZ_MS / 1000} s during the freeze ({rmax / 1000:.2f} s)",
                      rmax <= FREEZE_READYZ_MS and r503 > 0))

    # 4. Writes: acknowledged and lost, stored twice.
    print()
    print("**Writes** (acknowledged: answered 2xx; lost: acknowledged and not stored; twice: stored more than once)")
    print()
    print("| writes | sent | acknowledged | stored | lost | stored twice | stored though not acknowledged |")
    print("|---|---|---|---|---|---|---|")
    for cls, stored_file, label in (("callout", "stored.callouts", "PSA callouts (webhook_events by event_id)"),
                                    ("push", "stored.pushes", "gitforge pushes (gitforge_deliveries by delivery id)")):
        sent = [r for r in requests if r[1] == cls]
        acked = {r[5] for r in sent if 200 <= r[2] <= 299}
        stored = {r[0]: int(r[1]) for r in rows(work, stored_file)}
        lost = acked - stored.keys()
        twice = sum(1 for n in stored.values() if n > 1)
        unacked = len(stored.keys() - acked)
        print(f"| {label} | {len(sent)} | {len(acked)} | {len(stored)} | {len(lost)} | {twice} | {unacked} |")
        what = CLASS_NAMES[cls]
        musts.append((f"{what} lost: {len(lost)}", not lost))
        musts.append((f"{what} stored twice: {twice}", twice == 0))
        if lost:
            print(f"| (lost {what}, first five: {', '.join(sorted(lost)[:5])}) | | | | | | |")
    fake = {r[0] for r in rows(work, "mail.fake")}
    log_rows = rows(work, "mail.log")
    status = {}
    twice = 0
    for r in log_rows:
        status[r[0]] = r[1]
        twice += int(r[2]) > 1
    done = {m for m, st in status.items() if st in ("completed", "skipped")}
    missing = fake - status.keys()
    unfinished = {m: status[m] for m in fake & status.keys() if m not in done}
    lost_mail = len(missing) + len(unfinished)
    by_status = {}
    for st in unfinished.values():
        by_status[st] = by_status.get(st, 0) + 1
    print(f"| mail (messages the fake holds, after one more run with faults off; done: completed or skipped) | "
          f"{len(fake)} | {len(done & fake)} done | {len(status)} logged | {lost_mail} "
          f"({len(missing)} never logged{''.join(f', {n} {s}' for s, n in sorted(by_status.items()))}) | {twice} | — |")
    musts.append((f"mail lost: {lost_mail}", lost_mail == 0))
    musts.append((f"mail processed twice: {twice}", twice == 0))

    # 5. Memory, descriptors, threads.
    def growth(start, end, field):
        a, b = statistics.median(s[field] for s in start), statistics.median(s[field] for s in end)
        return 100.0 * (b - a) / max(1, a)

    samples = [(int(r[0]), r[1], r[2], int(r[3] or 0), int(r[4] or 0), int(r[5] or 0)) for r in rows(work, "samples")]
    # The connections each process held (the activity file: a console by its application_name,
    # mail-triage by its database), at the listing nearest a sample and within 10 s of it.
    listings = {}
    for r in rows(work, "activity"):
        if len(r) >= 3:
            who = r[2] if r[2].startswith("console") else r[1].replace("_", "-")
            listings.setdefault(int(r[0]), {}).setdefault(who, 0)
            listings[int(r[0])][who] += 1

    def held_connections(name, t):
        near = min(listings, key=lambda x: abs(x - t), default=None)
        if near is None or abs(near - t) > 10_000:
            return None
        return listings[near].get(name, 0)

    breakdown = []
    warm = begin + a.warmup * 1000
    middle = begin + (end - begin) // 2
    print()
    print("**Resources** (sampled every 10 s; start: the last sample of the warm-up, before the first fault; "
          "growth: the median of the run's last three samples over that of the warm-up's last three, "
          "as connections and threads come and go with the load)")
    print()
    print("| process | start: RSS / fds / threads | middle | end | growth RSS | growth fds |")
    print("|---|---|---|---|---|---|")
    for name in ("console0", "console1", "mail-triage"):
        before = [s for s in samples if s[1] == name and s[0] <= warm]
        mine = before[-1:] + [s for s in samples if s[1] == name and s[0] > warm]
        if not mine:
            continue
        first, last = mine[0], mine[-1]
        mid = min(mine, key=lambda s: abs(s[0] - middle))

        def cell(s):
            return f"{s[3] / 1024:.1f} MiB / {s[4]} / {s[5]}"

        if first[2] != last[2]:
            after = [s for s in mine if s[2] == last[2]]
            grow = f"restarted (kill -9): {after[0][3] / 1024:.1f} → {last[3] / 1024:.1f} MiB since" if after else "restarted"
            print(f"| {name} | {cell(first)} | {cell(mid)} | {cell(last)} (pid {last[2]}) | {grow} | — |")
            continue
        # A leak raises a whole window; one sample each way would weigh a connection opened or
        # closed a moment before (mail-triage's descriptors move between 18 and 40 with its runs).
        warm_tail, run_tail = before[-3:], mine[-3:]
        g_rss = growth(warm_tail, run_tail, 3)
        g_fds = growth(warm_tail, run_tail, 4)
        print(f"| {name} | {cell(first)} | {cell(mid)} | {cell(last)} | {g_rss:+.1f} % | {g_fds:+.1f} % |")
        musts.append((f"{name} RSS growth after the warm-up {g_rss:+.1f} % (< 10 %)", g_rss < 10))
        musts.append((f"{name} descriptors growth after the warm-up {g_fds:+.1f} % (< 10 %)", g_fds < 10))
        held = [(s, held_connections(name, s[0])) for s in warm_tail + run_tail]
        if all(c is not None for _, c in held):
            # Each database connection holds two descriptors (libpq's socket and the one Asio waits on).
            net = [(s[0], s[1], s[2], s[3], s[4] - 2 * c, s[5]) for s, c in held]
            conns = [c for _, c in held]
            breakdown.append(f"{name}: database connections {statistics.median(conns[:len(warm_tail)]):.0f} → "
                             f"{statistics.median(conns[len(warm_tail):]):.0f}, descriptors besides them "
                             f"{growth(net[:len(warm_tail)], net[len(warm_tail):], 4):+.1f} %")

    if breakdown:
        print("\nThe same windows with the database connections taken out (from pg_stat_activity at the "
              "nearest sample; not a must): " + "; ".join(breakdown) + ".")

    # Connections over the run (sampled every 10 s when the database answered).
    csamples = [(int(r[0]), r[1], int(r[2]), int(r[3])) for r in rows(work, "connection-samples") if len(r) >= 4]
    for db in sorted({c[1] for c in csamples}):
        mine = [c for c in csamples if c[1] == db]
        busy = [c for c in mine if c[3] > 0]
        print(f"\nConnections of {db}: {min(c[2] for c in mine)} to {max(c[2] for c in mine)} over {len(mine)} samples, "
              f"at the end {mine[-1][2]}; samples with one busy for more than 10 s: {len(busy)}"
              + (" (at " + ", ".join(f"{(c[0] - begin) / 1000:.0f} s" for c in busy[:8]) + ")" if busy else "") + ".")

    sessions = rows(work, "sessions")
    if sessions:
        print("\nSessions opened since PostgreSQL last started (pg_stat_database: opened, abandoned by the client, "
              "ended by a fatal error, killed): " + "; ".join(f"{r[0]} {r[1]}, {r[2]}, {r[3]}, {r[4]}" for r in sessions) + ".")

    # 6. Crashes, connections left.
    print()
    alive = [r[0].split() for r in rows(work, "alive")]
    gone = [x for x in alive if x[-1] != "alive"]
    killed = [r[0] for r in rows(work, "killed")]
    print("**Processes at the end:** " + ", ".join(" ".join(x) for x in alive) +
          (f"; killed by the schedule: pid {', '.join(killed)}" if killed else "") + ".")
    musts.append(("no crash" if not gone else f"crashed: {gone}", not gone))
    conns = rows(work, "connections")
    stuck = [c for c in conns if c[1] == "active" and int(float(c[3])) > 10]
    print("**Database connections at the end:** " +
          ", ".join(f"{c[0]} {c[1] or 'null'} {c[2]} (longest {c[3]} s)" for c in conns) + ".")
    musts.append(("no connection busy for more than 10 s at the end" if not stuck else f"stuck connections: {stuck}",
                  not stuck))

    print()
    print("**Musts:** " + "; ".join(f"{w}: {'held' if ok else '**FAILED**'}" for w, ok in musts) + ".")
    return 0 if all(ok for _, ok in musts) else 1


if __name__ == "__main__":
    sys.exit(main())
