#!/usr/bin/env python3
"""A stand-in for gobench/rsbench that speaks Contract 1, for the fault tests only
(it lives in tests/, never in the production programs). Behaviour comes from the
FAKE_* environment variables so each test can inject its own fault:

  FAKE_CRASH=<scenario>[:<build>]   exit 1 with a message on stderr
  FAKE_HANG=<scenario>[:<build>]    write our pid to FAKE_PIDFILE, then sleep forever
  FAKE_ESCAPE=<scenario>            first start a grandchild in a session of its own (it
                              leaves our process group) that sleeps for an hour, its
                              pid appended to FAKE_ESCAPED
  FAKE_CHECKSUM=<scenario>:<variant>:<n>   print checksum n for that scenario/variant
  FAKE_LOG=<file>             append "<label> <scenario>" per run (warm-ups too), and
                              put the run's line number in the record's metrics.seq

The program's identity (lang, build, label) comes from its file name: fake-<build>-<label>."""

import json
import os
import resource
import sys
import time
from pathlib import Path

me = Path(sys.argv[0]).name  # fake-go-head, fake-rust-system-base, ...
_, rest = me.split("-", 1)
build, label = rest.rsplit("-", 1)
lang = "go" if build == "go" else "rust"
program = {"go": "gobench", "rust-system": "rsbench", "rust-mimalloc": "rsbench-mimalloc"}[build]
toolchain = "go1.99.0" if lang == "go" else "rust1.99.0"

args = sys.argv[1:]
if args[:1] == ["list"]:
    print(json.dumps({"program": program, "lang": lang, "build": build, "toolchain": toolchain, "scenarios": {}}))
    sys.exit(0)
if args[:1] == ["setup"]:
    sys.exit(0)
scenario, args = args[0], args[1:]
variant, params = "", {}
for name, value in zip(args[::2], args[1::2]):
    if name == "--variant":
        variant = value
    else:
        params[name[2:]] = int(value) if value.isdigit() else value
seq = 0
if os.environ.get("FAKE_LOG"):
    with open(os.environ["FAKE_LOG"], "a") as fh:
        fh.write(f"{label} {scenario}\n")
    with open(os.environ["FAKE_LOG"]) as fh:
        seq = len(fh.readlines())  # this run's position among all runs, warm-ups included
me_now = (scenario, f"{scenario}:{build}")
if os.environ.get("FAKE_CRASH") in me_now:
    print("fake: simulated crash in the middle of the run", file=sys.stderr)
    sys.exit(1)
if os.environ.get("FAKE_ESCAPE") in me_now:
    import subprocess
    kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"], start_new_session=True,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.environ["FAKE_ESCAPED"], "a") as fh:
        fh.write(f"{kid.pid}\n")
if os.environ.get("FAKE_HANG") in me_now:
    Path(os.environ["FAKE_PIDFILE"]).write_text(str(os.getpid()))
    time.sleep(3600)
checksum = 1000 + sum(v for v in params.values() if isinstance(v, int))
fc = os.environ.get("FAKE_CHECKSUM", "")
if fc:
    sc, var, n = fc.split(":")
    if sc == scenario and var == variant:
        checksum = int(n)
usage = resource.getrusage(resource.RUSAGE_SELF)
print("some progress output before the record")
print(json.dumps({
    "schema": "gorust-bench.record/1", "lang": lang, "program": program, "build": build, "toolchain": toolchain,
    "scenario": scenario, "variant": variant, "params": params, "checksum": checksum, "elapsed_s": 0.001,
    "window_cpu_s": {"user": 0.0, "sys": 0.0}, "baseline_rss_bytes": usage.ru_maxrss * 1024,
    "latency_us": None, "peak_rss_bytes": usage.ru_maxrss * 1024, "cpu_user_s": usage.ru_utime,
    "cpu_sys_s": usage.ru_stime, "runtime": {"os": "linux", "arch": "x86_64", "num_cpu": 2}, "metrics": {"seq": seq},
}))
