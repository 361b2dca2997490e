#!/usr/bin/env python3
"""ecp5_paths.py: every register-to-register path of a synth_ecp5 netlist
longer than a budget, by a coarse delay model, in seconds instead of the
minutes one nextpnr run takes (and nextpnr names one path only).

    yosys -p "read_verilog -DNICGEN_ECP5 x.v; synth_ecp5 -top x; write_json x.json"
    python3 scripts/ecp5_paths.py x.json x [--budget 6.0] [--top 40]

The model is a development aid, not a timing sign-off: each net costs a
fixed routing delay and each cell its datasheet-order delay (speed 8).
nicgen synth --target ecp5 (nextpnr) gives the measured figures.
"""
import argparse
import collections
import json
import sys

ROUTE = 0.75   # ns per net
CLK_Q = 0.45   # flip-flop clock to out
SETUP = 0.15
LOCAL = 0.05  # slice-internal wire (LUT4 -> PFUMX -> L6MUX21)
CELL = {       # input pin -> output pin delay, ns
    "LUT4": 0.25,
    "PFUMX": 0.25,
    "L6MUX21": 0.25,
}
CARRY_STEP = 0.06   # CIN -> COUT of one CCU2C (2 bits)
CARRY_IN = 0.45     # A/B/C/D -> COUT
CARRY_OUT = 0.45    # CIN -> S
MULT = 3.3          # MULT18X18D, no internal register
MULT_CQ = 0.9       # MULT18X18D output register clock to P
BRAM_CQ = {False: 3.6, True: 0.9}  # DP16KD clock to DO, without/with OUTREG


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("module")
    ap.add_argument("--budget", type=float, default=6.0)
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    m = json.load(open(a.json))["modules"][a.module]
    names = {}
    for n, net in m["netnames"].items():
        for b in net["bits"]:
            if isinstance(b, int):
                if b not in names or (names[b].startswith("$") and not n.startswith("$")) or (len(n) < len(names[b]) and not n.startswith("$")):
                    names[b] = n
    # arcs: out bit -> list of (in bit, delay); sources: bit -> start delay
    drv = {}       # bit -> (cell, list of (inbit, delay))
    start = {}     # bit -> arrival at the source
    ends = []      # (bit, cell name) endpoints
    for cn, c in m["cells"].items():
        t, con, pd = c["type"], c["connections"], c.get("port_directions", {})
        ins = lambda ps: [b for p in ps for b in con.get(p, []) if isinstance(b, int)]
        if t == "TRELLIS_FF":
            for b in con["Q"]:
                start[b] = CLK_Q
            for b in ins(["DI", "M", "CE", "LSR"]):
                ends.append((b, cn, 0.0))
        elif t in CELL:
            # a LUT feeding PFUMX, PFUMX feeding L6MUX21: wires inside the
            # slice, no general routing (the negative term cancels ROUTE)
            o = [b for p, d in pd.items() if d == "output" for b in con[p]]
            i = [(x, CELL[t]) for x in ins([p for p, d in pd.items() if d == "input" and p not in ("ALUT", "BLUT", "D0", "D1")])]
            i += [(x, CELL[t] - ROUTE + LOCAL) for x in ins(["ALUT", "BLUT", "D0", "D1"])]
            for b in o:
                drv[b] = (cn, i)
        elif t == "CCU2C":
            cin = ins(["CIN"])
            lo = ins(["A0", "B0", "C0", "D0"])
            hi = ins(["A1", "B1", "C1", "D1"])
            drv[con["S0"][0]] = (cn, [(x, CARRY_IN) for x in lo] + [(x, CARRY_OUT - ROUTE) for x in cin])
            drv[con["S1"][0]] = (cn, [(x, CARRY_IN) for x in lo + hi] + [(x, CARRY_OUT + CARRY_STEP / 2 - ROUTE) for x in cin])
            drv[con["COUT"][0]] = (cn, [(x, CARRY_IN) for x in lo + hi] + [(x, CARRY_STEP - ROUTE) for x in cin])
        elif t == "MULT18X18D":
            i = ins([p for p in con if p[0] in "AB" and p[1:].isdigit()])
            outreg = c["parameters"].get("REG_OUTPUT_CLK", "NONE") != "NONE"
            for p in con:
                if p.startswith("P") and p[1:].isdigit():
                    for b in con[p]:
                        if outreg:
                            start[b] = MULT_CQ
                        else:
                            drv[b] = (cn, [(x, MULT) for x in i])
            if outreg:  # the multiplier ends at its output register
                for b in i:
                    ends.append((b, cn, MULT))
        elif t == "DP16KD":
            reg = c["parameters"].get("REGMODE_A", "NOREG") == "OUTREG" or c["parameters"].get("REGMODE_B", "NOREG") == "OUTREG"
            for p in con:
                if p.startswith("DO"):
                    for b in con[p]:
                        start[b] = BRAM_CQ[reg]
                if p.startswith(("DI", "AD", "CE", "WE")):
                    for b in ins([p]):
                        ends.append((b, cn, 0.0))
        elif t == "TRELLIS_DPR16X4":
            for b in con["DO"]:
                drv[b] = (cn, [(x, 0.5) for x in ins(["RAD"])])
            for b in ins(["DI", "WAD", "WRE"]):
                ends.append((b, cn, 0.0))
        else:
            for p, d in pd.items():
                if d == "output":
                    for b in con[p]:
                        start[b] = 0.0
    sys.setrecursionlimit(100000)
    arr, via = {}, {}

    def arrival(b):
        if b in arr:
            return arr[b]
        if b in start:
            arr[b], via[b] = start[b], None
            return arr[b]
        if b not in drv:
            arr[b], via[b] = 0.0, None
            return 0.0
        arr[b] = 0.0  # breaks combinational loops
        best, bv = 0.0, None
        for x, d in drv[b][1]:
            t = arrival(x) + ROUTE + d
            if t > best:
                best, bv = t, x
        arr[b], via[b] = best, bv
        return best

    res = []
    for b, cn, extra in ends:
        t = arrival(b) + ROUTE + SETUP + extra
        if t > a.budget:
            res.append((t, b))
    res.sort(key=lambda r: -r[0])
    seen = collections.OrderedDict()
    for t, b in res:
        p, x = [], b
        while x is not None:
            p.append(x)
            x = via.get(x)
        key = names.get(b, "?").split("[")[0].split("_TRELLIS_FF")[0]
        if key not in seen:
            seen[key] = (t, len(p) - 1, [names.get(x, str(x)) for x in reversed(p)])
    print(f"{len(res)} endpoint bits over {a.budget} ns, {len(seen)} distinct endpoints")
    for e, (t, n, p) in list(seen.items())[: a.top]:
        s = p[0].split("[")[0]
        mid = [x for x in p[1:-1] if not x.startswith("$")]
        print(f"{t:6.2f} ns {n:2d} hops  {s} -> {e}   via {' '.join(dict.fromkeys(x.split('[')[0] for x in mid))[:160]}")


if __name__ == "__main__":
    main()
