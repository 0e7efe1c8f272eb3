"""Issue 5's duration bars: `osmark run quick` under 90 s and `osmark run full` under
15 minutes on a 2-core machine, default copies, measured end to end through the installed
`osmark` command (preflight, compilation of the kernels on first use and saving included).

    python validation/suites.py [--only quick|full] [--workdir DIR]

Prints each suite's wall time, how many results it gave, how many converged, and the
tests that were skipped or failed with their reasons.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARS = {"quick": 90.0, "full": 15 * 60.0}


def run_suite(osmark: str, suite: str, workdir: Path | None, env: dict[str, str],
              out: Path) -> tuple[float, dict]:
    command = [osmark, "run", suite, "--json", str(out)]
    if workdir is not None:
        command += ["--workdir", str(workdir)]
    start = time.perf_counter()
    proc = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if not out.exists():
        sys.exit(f"{' '.join(command)} wrote no result (exit {proc.returncode}): "
                 f"{proc.stderr.strip()[-500:]}")
    return wall, json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(BARS), help="run one suite")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="where the storage tests write (default: a temporary dir)")
    args = parser.parse_args()
    osmark = shutil.which("osmark") or str(Path(sys.executable).parent / "osmark")
    root = Path(tempfile.mkdtemp(prefix="osmark-suites-"))
    env = {**os.environ, "OSMARK_DATA_DIR": str(root / "data")}
    env.pop("OSMARK_DB", None)
    try:
        for suite in [args.only] if args.only else ["quick", "full"]:
            wall, data = run_suite(osmark, suite, args.workdir, env, root / f"{suite}.json")
            results = data["results"]
            ok = [r for r in results if r["status"] == "ok"]
            converged = sum(r["converged"] for r in ok)
            verdict = "met" if wall < BARS[suite] else "NOT MET"
            print(f"{suite}: {wall:.0f} s (bar {BARS[suite]:.0f} s: {verdict}); "
                  f"{len(results)} results, {len(ok)} ok, {converged} converged")
            for r in results:
                if r["status"] != "ok":
                    print(f"  {r['id']} ×{r['copies']}: {r['status']}: {r['reason']}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
