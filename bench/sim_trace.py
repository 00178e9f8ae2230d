#!/usr/bin/env python3
"""A synthetic SWF trace for timing `mfprio-host simulate` (bench/README.md,
"simulate at scale").

  sim_trace.py JOBS [SEED] > trace.swf

Deterministic (Python's Mersenne Twister, fixed seed): a 1024-processor
machine; arrivals a Poisson process with a 45 s mean gap; sizes powers of two
1..128 (uniform exponent); run times lognormal (mu 6, sigma 1.5: median
~400 s, mean ~1250 s), at least 1 s; requested time the run time x 1, 1, 2,
3 or 5; users Pareto-distributed over 300 (a few heavy users), 30 groups.
The load is about 87 % utilization under FIFO with EASY backfill.
"""
import random
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: sim_trace.py JOBS [SEED]")
    n = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    r = random.Random(seed)
    out = sys.stdout
    out.write("; MaxProcs: 1024\n; Note: synthetic, bench/sim_trace.py %d %d\n" % (n, seed))
    t = 0
    for i in range(1, n + 1):
        t += int(r.expovariate(1 / 45.0))
        c = 2 ** r.randint(0, 7)
        run = max(1, int(r.lognormvariate(6, 1.5)))
        req = run * r.choice([1, 1, 2, 3, 5])
        u = int(r.paretovariate(1.0)) % 300 + 1
        g = u % 30 + 1
        out.write("%d %d -1 %d %d -1 -1 %d %d -1 1 %d %d -1 -1 -1 -1 -1\n" % (i, t, run, c, c, req, u, g))


if __name__ == "__main__":
    main()
