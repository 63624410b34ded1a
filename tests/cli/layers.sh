#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The layout shows the architecture (docs/design.md): user/ is layered
# util < probe < source < core < render < top < cmd, and a file includes
# only its own layer and those below. No header include cycles, every
# header starts with a purpose line, and no file is a whole program.
set -u
cd "$(dirname "$0")/../.."
python3 - <<'PY'
import glob, os, re, sys

order = ["util", "probe", "source", "core", "render", "top", "cmd"]
rank = {l: i for i, l in enumerate(order)}
fails = []
graph = {}
files = sorted(glob.glob("user/*/*.[ch]"))

for path in files:
    layer = path.split("/")[1]
    if layer not in rank:
        fails.append(f"{path}: directory '{layer}' is not a layer ({', '.join(order)})")
        continue
    text = open(path).read()
    lines = text.count("\n")
    limit = 400 if os.path.basename(path).startswith("view_") else 700
    if lines > limit + limit // 10:
        fails.append(f"{path}: {lines} lines (a file past ~{limit} has more than one concern)")
    if path.endswith(".h") and not re.search(r"/\*.*?\b[a-z_0-9]+\.h - ", text[:600], re.S):
        fails.append(f"{path}: no purpose line ('name.h - what it is') at the top")
    deps = set()
    for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
        if "/" not in inc:
            continue  # bpf/ headers and the generated skeleton
        dep_layer = inc.split("/")[0]
        if dep_layer not in rank:
            fails.append(f"{path}: includes {inc} from no layer")
            continue
        if rank[dep_layer] > rank[layer]:
            fails.append(f"{path}: {layer} includes {inc} from the higher layer {dep_layer}")
        deps.add("user/" + inc)
    graph[path] = deps

# Header include cycles.
state = {}
def visit(n, stack):
    state[n] = 1
    for d in graph.get(n, ()):
        if not d.endswith(".h"):
            continue
        if state.get(d) == 1:
            fails.append("include cycle: " + " -> ".join(stack + [n, d]))
        elif d not in state:
            visit(d, stack + [n])
    state[n] = 2
for h in graph:
    if h.endswith(".h") and h not in state:
        visit(h, [])

for f in fails:
    print("FAIL " + f)
print(f"layers: {len(files)} files checked, {len(fails)} problems")
sys.exit(1 if fails else 0)
PY
