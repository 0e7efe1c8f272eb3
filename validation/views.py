"""Issue 3's quality bars, measured end to end through the installed `osmark` command:

- `osmark compare` of two runs of 30 tests each, interpreter start included (bar: 0.5 s);
- `osmark history` on a store of 10,000 runs (bar: 1 s), and `history --test`, `runs`;
- the size of the HTML report of 10 runs (bar: 1 MB).

The runs are generated from a real result file (tests/golden/schema2-index-2copies.json):
its 24 results, six of them copied under new ids to make 30 tests, each test's samples
scaled by a per-run factor so runs differ. Everything lives in a temporary data directory.

    python validation/views.py [--runs 10000] [--repeat 7] [--db postgresql://…]

With --db the store is that database (emptied first: give a scratch database), else a
new SQLite file.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import msgspec

from osmark import model
from osmark.store import Store

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "schema2-index-2copies.json"


def scaled(result: model.BenchResult, factor: float, new_id: str | None = None,
           ) -> model.BenchResult:
    samples = [s * factor for s in result.samples]
    return msgspec.structs.replace(
        result, id=new_id or result.id, samples=samples,
        median=None if result.median is None else result.median * factor,
        ci_low=None if result.ci_low is None else result.ci_low * factor,
        ci_high=None if result.ci_high is None else result.ci_high * factor,
        index=None if result.index is None else result.index * factor)


def make_run(template: model.ResultFile, run_id: str, started: datetime, rng: random.Random,
             thirty: bool) -> model.ResultFile:
    drift = rng.gauss(1.0, 0.02)
    results = [scaled(r, drift * rng.gauss(1.0, 0.01)) for r in template.results]
    if thirty:  # 24 real results + 6 more under other ids = 30 tests
        results += [scaled(r, drift, f"{r.id}-again") for r in template.results[:6]]
    scores = [msgspec.structs.replace(s, index=(s.index or 0) * drift) for s in template.scores]
    run = msgspec.structs.replace(template.run, id=run_id, started=started.isoformat(),
                                  ended=started.isoformat())
    return msgspec.structs.replace(template, run=run, results=results, scores=scores)


def timed(command: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """Median and worst wall time of `command` (a fresh interpreter each time)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(command, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            sys.exit(f"{' '.join(command)} failed: {proc.stderr.strip()}")
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000, help="runs in the history store")
    parser.add_argument("--repeat", type=int, default=7, help="timings per command")
    parser.add_argument("--db", default=None, help="a scratch PostgreSQL URL (default: SQLite)")
    args = parser.parse_args()
    osmark = shutil.which("osmark") or str(Path(sys.executable).parent / "osmark")
    template = model.load(GOLDEN)
    rng = random.Random(1)
    root = Path(tempfile.mkdtemp(prefix="osmark-views-"))
    (root / "empty").mkdir()
    env = {**os.environ, "OSMARK_DATA_DIR": str(root / "data")}
    env.pop("OSMARK_DB", None)
    db_url = args.db or f"sqlite:///{root / 'data' / 'osmark.db'}"
    if args.db:
        env["OSMARK_DB"] = args.db
    try:
        # compare: two runs of 30 tests
        t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
        pair = []
        for i in range(2):
            path = root / f"run{i}.json"
            model.save(make_run(template, f"cmp-{i}", t0, rng, thirty=True), path)
            pair.append(str(path))
        tests = len({(r.id, r.copies) for r in model.load(pair[0]).results})
        med, worst = timed([osmark, "compare", *pair], env, args.repeat)
        print(f"compare, 2 runs × {tests} results: median {med:.3f} s, worst {worst:.3f} s "
              f"(bar 0.5 s)")
        med, worst = timed([osmark, "compare", *pair, "--format", "json"], env, args.repeat)
        print(f"compare --format json: median {med:.3f} s, worst {worst:.3f} s")

        # history: a store of N runs of one host, each with its result file
        results_dir = root / "data" / "results"
        results_dir.mkdir(parents=True)
        start = time.perf_counter()
        items = []
        for i in range(args.runs):
            run = make_run(template, f"hist-{i:05d}", t0 + timedelta(hours=i), rng,
                           thirty=False)
            path = results_dir / f"{run.run.id}.json"
            path.write_bytes(msgspec.json.encode(run))
            items.append((run, path))
        written = time.perf_counter() - start
        store = Store(db_url)
        if args.db:
            store.rebuild(root / "empty")  # a scratch database starts empty
        start = time.perf_counter()
        store.index_many(items)
        store.close()
        print(f"store ({store.display_url.split(':')[0]}): {args.runs} runs written in "
              f"{written:.1f} s, indexed in {time.perf_counter() - start:.1f} s")
        for command in (["history"], ["history", "--test", "ub.pipe"],
                        ["history", "--copies", "2", "--last", "50"], ["runs"],
                        ["show", "latest"]):
            med, worst = timed([osmark, *command], env, args.repeat)
            print(f"{' '.join(command)} on {args.runs} runs: median {med:.3f} s, "
                  f"worst {worst:.3f} s (bar 1 s)")

        # report: 10 runs
        report = root / "report.html"
        ids = [f"hist-{i:05d}" for i in range(args.runs - 10, args.runs)]
        med, worst = timed([osmark, "report", *ids, "-o", str(report)], env, 3)
        print(f"report of 10 runs: {report.stat().st_size / 1024:.0f} KiB (bar 1024 KiB), "
              f"written in {med:.2f} s")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
