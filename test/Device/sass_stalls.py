"""Where a kernel's warps stall, per SASS instruction: the summary of ncu's
source page, to put our kernel's waits next to a peer's line by line
(docs/HopperKernel.md, "Key tile, empty slabs, ping-pong and the stall
profile": that is how the P V wait of our d128 forward was found).

Usage, on the GPU machine:
  ncu --nvtx --nvtx-include measure/ --clock-control none --section WarpStateStats \\
      --section SourceCounters --import-source no -o REP python3 test/Device/profile_forward.py ...
  ncu -i REP.ncu-rep --page source --csv --print-source sass > SRC.csv
  python3 test/Device/sass_stalls.py SRC.csv [TOP]
prints the samples by stall reason and the TOP (default 25) instructions
with the most samples, in program order, with their two main reasons.
"""
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def load(path):
    """(header, rows) of the source page's instruction table."""
    rows = list(csv.reader(open(path)))
    start = next((i for i, r in enumerate(rows) if "Source" in r), None)
    if start is None:
        raise SystemExit(f"sass_stalls: no source table in {path}")
    header = rows[start]
    return header, [r for r in rows[start + 1:] if len(r) == len(header)]


def main():
    header, rows = load(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    samples = header.index("Warp Stall Sampling (All Samples)")
    source = header.index("Source")
    reasons = [i for i, c in enumerate(header) if c.startswith("stall_") and "Not Issued" not in c]
    total = sum(number(r[samples]) for r in rows) or 1.0
    by_reason = {header[c][len("stall_"):]: sum(number(r[c]) for r in rows) / total * 100
                 for c in reasons}
    print(f"{len(rows)} instructions, {total:.0f} stall samples; by reason: " + ", ".join(
        f"{k} {v:.1f} %" for k, v in sorted(by_reason.items(), key=lambda kv: -kv[1]) if v >= 0.5))
    heaviest = sorted(range(len(rows)), key=lambda i: -number(rows[i][samples]))[:top]
    for i in sorted(heaviest):
        r = rows[i]
        main_reasons = sorted(((number(r[c]), header[c][len("stall_"):]) for c in reasons),
                              reverse=True)[:2]
        print(f"{i:5d} {number(r[samples]) / total * 100:5.1f} %  {r[source].strip()[:64]:64s} "
              + ", ".join(f"{name} {n:.0f}" for n, name in main_reasons if n))


if __name__ == "__main__":
    main()
