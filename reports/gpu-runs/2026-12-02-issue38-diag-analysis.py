"""Issue 38, the device trace of call 1 (2026-12-02-issue38-diag-run.sh): per row, the
kernel's own SM clock and time per sample (from a build of coursegen at 7a99141 that also
appended each sample to COURSEGEN_SAMPLE_TRACE: time, kernel, row, index, ms, MHz), their
correlation and elasticity d ln(time) / d ln(clock), and what NVML (polled every ~10 ms)
read during the row. Run from this folder: python3 2026-12-02-issue38-diag-analysis.py"""
import collections, csv, math, statistics as st

P = "2026-12-02-issue38-diag"
for run in ["quiet1", "quiet2", "loaded"]:
    rows = {}
    for t, k, l, i, ms, mhz in csv.reader(open(f"{P}-{run}-samples.csv")):
        rows.setdefault((k, l), []).append((float(t), float(ms), float(mhz)))
    nvml = list(csv.DictReader(open(f"{P}-{run}-nvml.csv")))
    print(f"== {run}")
    for (k, l), v in rows.items():
        ms = [x[1] for x in v]
        mhz = [x[2] for x in v]
        lx, ly = [math.log(x) for x in mhz], [math.log(y) for y in ms]
        mx, my = st.mean(lx), st.mean(ly)
        sxx = sum((x - mx) ** 2 for x in lx)
        syy = sum((y - my) ** 2 for y in ly)
        sxy = sum((x - mx) * (y - my) for x, y in zip(lx, ly))
        r = sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")
        el = sxy / sxx if sxx > 0 else float("nan")
        a, b = v[0][0], v[-1][0]
        w = [n for n in nvml if a - 0.05 <= float(n["t"]) <= b + 0.01]
        sm = [int(n["sm_mhz"]) for n in w] or [0]
        mem = sorted({n["mem_mhz"] for n in w})
        pw = [float(n["power_w"]) for n in w] or [0]
        reasons = dict(collections.Counter(n["reasons_hex"] for n in w))
        print(
            f"{k:16}{l:4} n={len(v):3} kernel clock {min(mhz):4.0f}-{max(mhz):4.0f} "
            f"(median {st.median(mhz):4.0f}) ms {min(ms):8.4f}-{max(ms):8.4f} r={r:+.2f} "
            f"elasticity={el:+.2f} | NVML SM {min(sm)}-{max(sm)} mem {','.join(mem)} "
            f"power {min(pw):.0f}-{max(pw):.0f} W reasons {reasons}"
        )
