"""Where a warp-specialized kernel's local-memory spills are: the prologue
(before the producer's setmaxnreg.dec), the producer (between its
USETMAXREG.DEALLOC and the consumers' USETMAXREG.TRY_ALLOC) or the consumers
(after it), from the SASS of each cubin.

ptxas reports one spill figure per kernel; a spill in the producer warp (24
registers after setmaxnreg.dec, one warp issuing TMA loads) costs a few
L1-resident accesses per tile, a spill in the consumers' inner loop costs on
every tile of every warp. The split follows the code's layout (the producer
branch is emitted first, then the consumers'), which is how our kernels are
laid out; a kernel without setmaxnreg counts everything as "prologue".

    python3 spill_sites.py DISASSEMBLER CUBIN... > spills.txt
DISASSEMBLER: "cuobjdump" (cuobjdump --dump-sass, on the GPU machine) or a
path to nvdisasm (nvdisasm -c; the PyPI wheel nvidia-cuda-nvdisasm has one).
Prints one line per kernel with spills and a summary line; a cubin of a
kernel sequence (the backward's pre, main and post kernels) counts each of
its kernels apart.
"""
import os
import re
import subprocess
import sys

SPILL = re.compile(r"\b(LDL|STL)\b")


def sass(disassembler, cubin):
    if os.path.basename(disassembler) == "cuobjdump":
        cmd = [disassembler, "--dump-sass", cubin]
    else:
        cmd = [disassembler, "-c", cubin]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


# Where a kernel's code starts: cuobjdump's "Function : name" header,
# nvdisasm's ".text.name:" section label.
FUNCTION = re.compile(r"^\s*(?:Function : (\w+)|\.text\.(\w+):)", re.M)


def kernels(text, default_name):
    """(name, SASS) of each kernel in a disassembly."""
    starts = list(FUNCTION.finditer(text))
    if not starts:
        return [(default_name, text)]
    ends = [m.start() for m in starts[1:]] + [len(text)]
    return [(m.group(1) or m.group(2), text[m.end():end]) for m, end in zip(starts, ends)]


def spill_sites(text):
    """(prologue, producer, consumers) counts of LDL/STL instructions."""
    counts = [0, 0, 0]
    region = 0
    for line in text.splitlines():
        if "USETMAXREG.DEALLOC" in line and region == 0:
            region = 1
        elif "USETMAXREG.TRY_ALLOC" in line or "USETMAXREG.ALLOC" in line:
            region = 2
        elif SPILL.search(line):
            counts[region] += 1
    return counts


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    disassembler, cubins = argv[1], argv[2:]
    totals, kernels_with, count = [0, 0, 0], [0, 0, 0], 0
    for cubin in cubins:
        for name, code in kernels(sass(disassembler, cubin),
                                  os.path.basename(cubin)[:-len(".cubin")]):
            count += 1
            counts = spill_sites(code)
            for i, n in enumerate(counts):
                totals[i] += n
                kernels_with[i] += n > 0
            if any(counts):
                print(f"{name:<72} prologue {counts[0]:>3} producer {counts[1]:>3} "
                      f"consumers {counts[2]:>3}")
    print(f"spill_sites: {count} kernels; with spills in the prologue {kernels_with[0]}, "
          f"the producer {kernels_with[1]}, the consumers {kernels_with[2]} "
          f"(LDL/STL instructions: {totals[0]} / {totals[1]} / {totals[2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
