#!/usr/bin/env python3
# HTA's own step (iteration) of every GPU event of a kineto trace, written as a CSV for bench/hta-steps.mjs to
# compare with kprof's. It runs HolisticTraceAnalysis's code, unchanged, from a checkout given on the command line
# (nothing is fetched): hta.common.trace.Trace parses the trace (parse_trace_file: transform_correlation_to_index,
# then add_iteration, which gives a GPU event the iteration of the CPU event of its args.correlation), and
# align_and_filter_trace says which GPU events HTA keeps (_filter_irrelevant_gpu_kernels: on a trace of two or
# more ProfilerSteps it drops those whose launch is not in the file, and those launched in the last step unless
# include_last_profiler_step).
#
#   python3 bench/hta-steps.py HTA_CHECKOUT TRACE.json OUT.csv
#
# Needs pandas and numpy (Debian: python3-pandas), psutil and yaml (python3-psutil, python3-yaml), which HTA's
# modules import. One row per GPU event (HTA's GPUKernelFilter: stream >= 0 and correlation >= 0, i.e. kernels,
# memcpy and memset), in HTA's order:
#   index,ts,dur,stream,correlation,cat,name,iteration,kept,kept_with_last
# ts and dur as the trace writes them (µs; before HTA's alignment of ranks), iteration -1 where HTA gives none,
# kept / kept_with_last 1 or 0.

import csv
import logging
import os
import sys


def main() -> int:
    if len(sys.argv) != 4:
        sys.stderr.write("usage: python3 bench/hta-steps.py HTA_CHECKOUT TRACE.json OUT.csv\n")
        return 2
    checkout, trace_file, out = sys.argv[1:]
    sys.path.insert(0, os.path.abspath(checkout))
    from hta.common.trace import Trace  # noqa: E402  (HTA from the checkout given)
    from hta.configs.config import logger

    logger.setLevel(logging.ERROR)
    trace_file = os.path.abspath(trace_file)

    def load(include_last):
        t = Trace(trace_files={0: trace_file}, trace_dir=os.path.dirname(trace_file))
        t.parse_traces(use_multiprocessing=False, use_memory_profiling=False)
        parsed = t.traces[0].copy()
        if include_last is not None:
            t.align_and_filter_trace(include_last_profiler_step=include_last)
        return t, parsed

    t, df = load(None)
    kept = set(load(False)[0].traces[0]["index"])
    kept_last = set(load(True)[0].traces[0]["index"])
    sym = t.symbol_table.get_sym_table()
    gpu = df[(df["stream"] >= 0) & (df["correlation"] >= 0)]
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["index", "ts", "dur", "stream", "correlation", "cat", "name", "iteration", "kept", "kept_with_last"])
        for r in gpu.itertuples(index=False):
            w.writerow(
                [
                    r.index,
                    r.ts,
                    r.dur,
                    r.stream,
                    r.correlation,
                    sym[r.cat],
                    sym[r.name],
                    r.iteration,
                    int(r.index in kept),
                    int(r.index in kept_last),
                ]
            )
    steps = sorted(i for i in gpu["iteration"].unique() if i >= 0)
    print(f"{trace_file}: {len(gpu)} GPU events, steps {steps}; kept {len(kept & set(gpu['index']))}, "
          f"kept with the last step {len(kept_last & set(gpu['index']))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
