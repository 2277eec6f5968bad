#!/usr/bin/env python3
"""What the kernel charges for fresh memory on this machine.

Maps anonymous memory and writes one byte per 4 KiB page, so that every page is faulted in
once, then unmaps it, and reports the system CPU time of each step per page and per byte (a
process that exits pays the second step too). Then maps as much again and makes it resident
with one madvise(MADV_POPULATE_WRITE) call, as `unfold`'s allocator does for large blocks
(Linux 5.14 and later): the same pages without one trap per page. An exploration that keeps every
event it builds asks for fresh memory all the time: bytes per event (`tools/compare_udpor.sh`)
times the cost per byte printed here is a floor under its time per event, whatever its own code
does. On virtual machines the cost per page is often several times that of bare metal.

Usage: tools/page_cost.py [MiB]   (default 1024)
"""

import mmap
import resource
import sys

PAGE = 4096
# Linux's MADV_POPULATE_WRITE (Python's mmap module names it only from 3.13 on).
MADV_POPULATE_WRITE = 23


def main() -> None:
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    size = mib << 20
    before = resource.getrusage(resource.RUSAGE_SELF)
    area = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    for offset in range(0, size, PAGE):
        area[offset] = 1
    touched = resource.getrusage(resource.RUSAGE_SELF)
    area.close()
    after = resource.getrusage(resource.RUSAGE_SELF)
    pages = size // PAGE
    faults = touched.ru_minflt - before.ru_minflt
    print(f"{mib} MiB, {pages} pages, {faults} minor faults")
    steps = [("fault in", before, touched), ("give back", touched, after)]
    area = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        area.madvise(MADV_POPULATE_WRITE)
        steps.append(("populate", after, resource.getrusage(resource.RUSAGE_SELF)))
    except OSError as e:
        print(f"populate: refused ({e})")
    area.close()
    for what, start, end in steps:
        system = end.ru_stime - start.ru_stime
        print(f"{what}: system time {system:.3f} s, {system / pages * 1e6:.2f} µs per page, "
              f"{system / size * 1e9:.3f} ns per byte")


if __name__ == "__main__":
    main()
