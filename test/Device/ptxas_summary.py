"""One line per kernel from a ptxas -v log: registers, stack, spills, notes."""
import re
import sys

cur = None
rows = {}
notes = {}
for line in open(sys.argv[1]):
    m = re.search(r"Compiling entry function '(\w+)'", line)
    if m:
        cur = m.group(1)
        rows[cur] = {}
    m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
    if m and cur:
        rows[cur].update(stack=m.group(1), spill_st=m.group(2), spill_ld=m.group(3))
    m = re.search(r"Used (\d+) registers", line)
    if m and cur:
        rows[cur]["regs"] = m.group(1)
    m = re.search(r"\((C\d+)\).*function '(\w+)'", line)
    if m:
        notes.setdefault(m.group(2), []).append(m.group(1))
for k, v in rows.items():
    print(f"{k:50s} regs={v.get('regs')} stack={v.get('stack')} spill={v.get('spill_st')}/{v.get('spill_ld')} {' '.join(notes.get(k, []))}")
