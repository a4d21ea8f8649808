#!/usr/bin/env python3
"""Where a process's resident memory grew between two /proc/PID/smaps snapshots.

Usage: bench/smaps_growth.py BEFORE AFTER

Each mapping is put in one class, and the resident kB of each class is printed for both
snapshots with the difference:
  thread stacks   anonymous rw-p mappings of 8 MiB (glibc's default stack), one per thread
  malloc arenas   anonymous mappings inside a 64 MiB-aligned heap of a non-main arena
  main heap       [heap] (the main arena)
  other anonymous large malloc blocks (mmap'd), the allocators of libraries, ...
  files           code and data of the binary and its libraries
"""
import re
import sys

HEAP_MAX = 64 << 20  # glibc's HEAP_MAX_SIZE on 64-bit: a non-main arena's heap is aligned to it
STACK_KB = 8192


def mappings(path):
    """Yields (start, end, perms, name, rss_kb) for each mapping."""
    current = None
    with open(path) as f:
        for line in f:
            head = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$", line)
            if head:
                if current:
                    yield current
                current = [int(head[1], 16), int(head[2], 16), head[3], head[4].strip(), 0]
            elif line.startswith("Rss:") and current:
                current[4] = int(line.split()[1])
    if current:
        yield current


def classify(path):
    maps = list(mappings(path))
    # A non-main arena's heap starts at a 64 MiB boundary and spans its rw part and the reserved rest.
    arena_starts = {start for start, end, perms, name, rss in maps
                    if not name and start % HEAP_MAX == 0 and perms in ("rw-p", "---p")}
    classes = {}
    for start, end, perms, name, rss in maps:
        size_kb = (end - start) // 1024
        if name == "[heap]":
            kind = "main heap"
        elif name.startswith("["):
            kind = "other " + name
        elif name:
            kind = "files"
        elif start - start % HEAP_MAX in arena_starts:
            kind = "malloc arenas"
        elif perms == "rw-p" and STACK_KB - 8 <= size_kb <= STACK_KB:
            kind = "thread stacks"
        else:
            kind = "other anonymous"
        classes[kind] = classes.get(kind, 0) + rss
    return classes


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = classify(sys.argv[1]), classify(sys.argv[2])
    print(f"{'class':<20}{'before kB':>12}{'after kB':>12}{'growth kB':>12}")
    for kind in sorted(set(before) | set(after), key=lambda k: -(after.get(k, 0) - before.get(k, 0))):
        b, a = before.get(kind, 0), after.get(kind, 0)
        print(f"{kind:<20}{b:>12}{a:>12}{a - b:>+12}")
    total_b, total_a = sum(before.values()), sum(after.values())
    print(f"{'total':<20}{total_b:>12}{total_a:>12}{total_a - total_b:>+12}")


if __name__ == "__main__":
    main()
