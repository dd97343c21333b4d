import json, subprocess, statistics, sys
bins = {"old": "/tmp/exp/bcast_old", "new": "/tmp/exp/bcast_new"}
threads, rounds = sys.argv[1], int(sys.argv[2])
extra = sys.argv[3:]
times = {}
names = list(bins)
for r in range(rounds):
    order = names if r % 2 == 0 else names[::-1]
    for name in order:
        out = subprocess.run([bins[name], "bench", "--group", "model", "--json", "--threads", threads,
                              "--budget-ms", "100"] + extra, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            d = json.loads(line)
            if "case" in d:
                times.setdefault(d["case"], {}).setdefault(name, []).append(d["us_per_call"])
print(f"threads {threads}; medians of {rounds} alternating rounds, us per call; ratio old/new (above 1: new faster)")
rs = []
for case, per in times.items():
    o, n = statistics.median(per["old"]), statistics.median(per["new"])
    rs.append(o / n)
    print(f"{case:36} old {o:9.2f} new {n:9.2f}  {o/n:5.2f}")
print(f"median ratio {statistics.median(rs):.3f}, min {min(rs):.2f}, max {max(rs):.2f}")
