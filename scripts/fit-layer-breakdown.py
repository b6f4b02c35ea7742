#!/usr/bin/env python3
"""Fits the numbers of the many-ranks model to the in-sample rows of a layer breakdown.

The rows marked `use: fit` in calibrate/published/sglang_h100_layer_breakdown.csv (SGLang's
H100 report: the DeepEP exchanges' core and barrier time per layer, and DeepEP's prefill unit
tests) inform five numbers. First the unit tests (`run: alone`, the kernels alone, RDMA-bound):
  kernels.comm.normal_rdma_efficiency of the profile, scaled until the geometric mean of
    predicted over measured is 1 (a link-bound kernel's time goes as 1 / efficiency; a few
    rounds, as the kernels' fixed latency does not scale).
Then, on the rows in the running layer:
  moe.expert_load_cv of the model config (how uneven SGLang's EPLB placement leaves the
    ranks' expert loads: the default-EPLB series against the perfect one),
  moe.sequence_expert_cv of the model config (how much one sequence's tokens favour some
    experts: a few long prompts per rank against thousands of one-token decode requests),
  kernels.comm.rank_time_cv_eager and rank_time_cv_graph of the profile (how far apart the
    ranks arrive at an exchange, eager prefill and CUDA-graph decode).
A coordinate search over the four on a grid each (each run is `overlapsim validate --json`;
three sweeps, each parameter over its grid with the others held), least squares of the log of
predicted over measured; the rows marked `check` are not read. Writes nothing unless
--write is given: then the best values go into the YAML files with a source naming this script.

    scripts/fit-layer-breakdown.py [--write]      (from the repository root, after building)
"""
import itertools
import json
import math
import os
import re
import subprocess
import sys

BIN = os.environ.get("OVERLAPSIM", "build/overlapsim")
DATA = "calibrate/published/sglang_h100_layer_breakdown.csv"
HW = "hw_profiles/h100-sxm.yaml"
MODEL = "models/configs/deepseek-v3.yaml"


def set_value(path, key, value, source):
    text = open(path).read()
    # {value, source} or {value, spread, source}: the spread is kept as it is.
    pattern = re.compile(
        r"^(\s*)" + key + r": \{value: [^,]*, (spread: [^,]*, )?source: \"[^\"]*\"\}", re.M)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no '{key}: {{value, source}}' line")
    text = pattern.sub(
        lambda m: f'{m.group(1)}{key}: {{value: {value:g}, {m.group(2) or ""}source: "{source}"}}',
        text, count=1)
    open(path, "w").write(text)


def get_value(path, key):
    m = re.search(r"^\s*" + key + r": \{value: ([^,]*),", open(path).read(), re.M)
    if not m:
        raise SystemExit(f"{path}: no '{key}: {{value, source}}' line")
    return float(m.group(1))


def objective():
    out = subprocess.run([BIN, "validate", DATA, "--json"], check=True, capture_output=True,
                         text=True).stdout
    rows = [r for r in json.loads(out)["rows"] if r["use"] == "fit" and r["measured_ms"] > 0]
    return sum(math.log(max(r["predicted_ms"], 1e-6) / r["measured_ms"]) ** 2 for r in rows), rows


RDMA = ("normal_rdma_efficiency", HW)


def fit_alone_rdma():
    """Scales the RDMA efficiency to the `alone` fit rows; returns the value (file left as is)."""
    eff = get_value(HW, RDMA[0])
    for _ in range(4):
        _, rows = objective()
        alone = [r for r in rows if r["run"] == "alone"]
        if not alone:
            return eff
        g = math.exp(sum(math.log(r["predicted_ms"] / r["measured_ms"]) for r in alone) /
                     len(alone))
        eff = round(eff * g, 4)
        set_value(HW, RDMA[0], eff, "trial")
    return eff


def main():
    grids = {
        ("expert_load_cv", MODEL): [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5],
        ("sequence_expert_cv", MODEL): [0.0, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16],
        ("rank_time_cv_eager", HW): [0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12,
                                     0.14, 0.16],
        ("rank_time_cv_graph", HW): [0.0, 0.01, 0.02, 0.04, 0.06, 0.08],
    }
    original = {p: open(p).read() for p in (HW, MODEL)}
    best = None
    try:
        rdma = fit_alone_rdma()
        current = {(name, path): get_value(path, name) for name, path in grids}
        for _ in range(3):
            for key, grid in grids.items():
                for v in grid:
                    trial = dict(current)
                    trial[key] = v
                    for (name, path), value in trial.items():
                        set_value(path, name, value, "trial")
                    cost, rows = objective()
                    if best is None or cost < best[0] - 1e-12:
                        best = (cost, trial, rows)
                current = dict(best[1])
    finally:
        for p, text in original.items():
            open(p, "w").write(text)
    cost, values, rows = best
    print(f"{RDMA[0]} {rdma:g} (the unit tests); then")
    print("best: " + ", ".join(f"{name} {v:g}" for (name, _), v in values.items()) +
          f"; sum of squared log errors {cost:.4f} over {len(rows)} fit rows")
    for r in rows:
        print(f"  {r['series']:<55} {r['category']:<18} measured {r['measured_ms']:8.3f} "
              f"predicted {r['predicted_ms']:8.3f} ({100 * r['error']:+.1f} %)")
    if "--write" in sys.argv:
        src = (f"fitted by scripts/fit-layer-breakdown.py to the use=fit rows of {DATA} "
               f"(SGLang's H100 EP report, lmsys.org 2025-05-05: the DeepEP exchanges' core and "
               f"barrier ms per layer, in-sample; coordinate search on a grid)")
        for (name, path), v in values.items():
            set_value(path, name, v, src)
        set_value(HW, RDMA[0], rdma,
                  f"fitted by scripts/fit-layer-breakdown.py to SGLang's H100 DeepEP unit tests at "
                  f"the prefill shape (the use=fit, run=alone rows of {DATA}: Dispatch Core 7.291 "
                  f"ms and Combine Core 14.290 ms per layer, in-sample; lmsys.org 2025-05-05): "
                  f"at H800's 0.8752 (deepep.csv) both were 15.8 % and 15.6 % fast - the RDMA "
                  f"fabric of SGLang's H100 cluster carries about 16 % less than DeepSeek's H800 "
                  f"one; spread: the chart's +-2 % reading of two rows")
        print("written")


if __name__ == "__main__":
    main()
