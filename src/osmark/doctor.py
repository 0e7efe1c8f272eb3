"""The preflight: is this machine quiet and ready for the selected tests? (`osmark doctor`)

Each check gives ok, warn or fail, a one-line message and, unless ok, a one-line fix.
A fail means results would be wrong or the tests cannot run; a warn means results will
be noisier than they should be. The "during" checks share ONE sampling window: one
reading of /proc before, one sleep of `interval` seconds, one reading after.

Thresholds (methodology.md §8 suggests starting points; these are ours):
  processes     any other program (processes of one name summed) using >= 10 % of one CPU
                over the window: warn; >= 50 %: fail. The doctor's own process tree is
                left out; kernel threads are not.
  load          1-min load average above 0.5 per online CPU: warn (load is system-wide
                and trails by about a minute, so it never fails on its own).
  steal         share of all CPU time stolen by the hypervisor over the window: warn
                above 2 %, fail above 10 %. An idle guest accrues little steal, so a
                low figure here is weak evidence of a quiet host.
  pressure      PSI "some" avg10: cpu above 5 %, memory above 1 %: warn.
  swap          any page swapped in or out during the window: warn.
  workdir       missing or not writable: fail. Free space below what the largest
                selected test writes (tests run one after another, so the MAX over
                (test, copies), not the sum) + 10 % + 16 MiB: fail.
  governor      any CPU on "powersave": warn. No cpufreq (VMs): ok, said so.
  throttling    thermal_throttle counters above 0 (since boot) or growing: warn.
  page reporting a virtio balloon with free page reporting: warn (freed guest memory
                goes back to the host and is slow to touch again).
  sudo path     under sudo with /usr/sbin or /sbin missing from PATH: warn.
  tools         a command a selected test runs is missing: fail.
  compiler      no usable C compiler: fail (every test is a compiled kernel).
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from osmark import noise
from osmark.catalog import Benchmark
from osmark.kernels.build import NO_COMPILER_FIX, CompilerMissing, find_toolchain
from osmark.runner import plan
from osmark.sysinfo import usable_cpus

Status = Literal["ok", "warn", "fail"]

CPU_WARN_SHARE = 0.10  # of one CPU
CPU_FAIL_SHARE = 0.50
LOAD_WARN_PER_CPU = 0.5
STEAL_WARN = 0.02
STEAL_FAIL = 0.10
PSI_CPU_WARN = 5.0  # % of time some task waited (avg10)
PSI_MEMORY_WARN = 1.0
SPACE_MARGIN_FRACTION = 0.10
SPACE_MARGIN_BYTES = 16 * 2**20

SHELL_TOOLS = ("sort", "od", "grep", "tee", "wc", "rm")
DEBIAN_PACKAGES = {
    "/bin/sh": "dash", "sh": "dash", "/bin/true": "coreutils", "sort": "coreutils",
    "od": "coreutils", "tee": "coreutils", "wc": "coreutils", "rm": "coreutils",
    "grep": "grep",
}


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    message: str
    fix: str | None = None


# --- what the selected tests need ---------------------------------------------------------


def workdir_bytes(spec: Benchmark, copies: int) -> int:
    """Bytes one run of `spec` at `copies` copies writes in the workdir at its peak, as the
    spec declares it per copy."""
    return spec.writes_bytes * copies


def required_tools(spec: Benchmark) -> tuple[str, ...]:
    """Commands the kernel runs: absolute paths are run as such, names through PATH."""
    if spec.kernel == "looper":
        shell = spec.params[0] if spec.params else "/bin/sh"
        return (shell, *SHELL_TOOLS)
    if spec.kernel == "syscall" and spec.mode == "exec":
        return ("/bin/true",)
    return ()


# --- formatting -------------------------------------------------------------------------


def _size(n: float) -> str:
    if n >= 2**30:
        return f"{n / 2**30:.1f} GiB"
    mib = n / 2**20
    return f"{mib:.1f} MiB" if mib < 100 else f"{mib:.0f} MiB"


def _pct(fraction: float) -> str:
    value = fraction * 100
    return f"{value:.1f} %" if value < 10 else f"{value:.0f} %"


def _limit(fraction: float) -> str:
    return f"{fraction * 100:g} %"


def _names(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


# --- the sampling window ------------------------------------------------------------------


@dataclass
class _Window:
    seconds: float
    consumers: list[noise.Consumer]
    cpu_before: noise.CpuTimes | None
    cpu_after: noise.CpuTimes | None
    swaps: tuple[int, int]
    throttle_before: dict[str, int]
    throttle_after: dict[str, int]


def _cpu_times() -> noise.CpuTimes | None:
    try:
        return noise.read_cpu_times()
    except (OSError, ValueError):
        return None


def _sample(interval: float) -> _Window:
    me = os.getpid()
    procs_before = noise.process_cpu_snapshot()
    cpu_before = _cpu_times()
    swaps_before = noise.read_vmstat_swaps()
    throttle_before = noise.read_throttle_counts()
    started = time.monotonic()
    time.sleep(interval)
    procs_after = noise.process_cpu_snapshot()
    seconds = time.monotonic() - started
    cpu_after = _cpu_times()
    swaps_after = noise.read_vmstat_swaps()
    throttle_after = noise.read_throttle_counts()
    own = noise.descendants(procs_before, me) | noise.descendants(procs_after, me)
    return _Window(
        seconds=seconds,
        consumers=noise.top_consumers(procs_before, procs_after, seconds, own),
        cpu_before=cpu_before, cpu_after=cpu_after,
        swaps=(swaps_after[0] - swaps_before[0], swaps_after[1] - swaps_before[1]),
        throttle_before=throttle_before, throttle_after=throttle_after,
    )


# --- the checks -------------------------------------------------------------------------


def _check_processes(window: _Window) -> Check:
    groups: dict[str, list[noise.Consumer]] = {}
    for consumer in window.consumers:
        groups.setdefault(consumer.name, []).append(consumer)
    ranked = sorted(groups.items(), key=lambda kv: -sum(c.cpu_share for c in kv[1]))
    busy = [(name, members, sum(c.cpu_share for c in members)) for name, members in ranked
            if sum(c.cpu_share for c in members) >= CPU_WARN_SHARE]
    total = sum(c.cpu_share for c in window.consumers)
    limits = (f"warn at {_limit(CPU_WARN_SHARE)}, fail at {_limit(CPU_FAIL_SHARE)} of a "
              f"CPU over {window.seconds:.1f} s")
    if not busy:
        return Check("processes", "ok",
                     f"no other program used {_limit(CPU_WARN_SHARE)} of a CPU or more "
                     f"(all together {_pct(total)} of a CPU; {limits})")

    def describe(name: str, members: list[noise.Consumer], share: float) -> str:
        if len(members) == 1:
            who = f"pid {members[0].pid}"
        else:
            who = f"{len(members)} processes, pids " + ", ".join(
                str(c.pid) for c in members[:3]) + ("…" if len(members) > 3 else "")
        return f"{name} ({who}) {_pct(share)} of a CPU"

    top = busy[0][2]
    status: Status = "fail" if top >= CPU_FAIL_SHARE else "warn"
    listed = "; ".join(describe(*entry) for entry in busy[:3])
    more = f"; {len(busy) - 3} more above {_limit(CPU_WARN_SHARE)}" if len(busy) > 3 else ""
    return Check("processes", status, f"{listed}{more} ({limits})",
                 "close them or wait until they finish; results taken now will be "
                 "labelled noisy")


def _check_load() -> Check:
    load = noise.read_loadavg()
    cpus = os.cpu_count() or 1
    limit = LOAD_WARN_PER_CPU * cpus
    if load is None:
        return Check("load", "ok", "/proc/loadavg unreadable: load not checked")
    text = (f"1-min load average {load.load1:.2f} on {cpus} CPU{'s' if cpus > 1 else ''} "
            f"(warn above {limit:g}, {LOAD_WARN_PER_CPU:g} per CPU)")
    if load.load1 > limit:
        return Check("load", "warn", text,
                     "stop what is running, or wait: the average trails by about a minute")
    return Check("load", "ok", text)


def _check_steal(window: _Window) -> Check:
    before, after = window.cpu_before, window.cpu_after
    if before is None or after is None:
        return Check("steal", "ok", "/proc/stat unreadable: steal not checked")
    share = noise.steal_fraction(before, after)
    boot = after.steal / after.total if after.total > 0 else 0.0
    text = (f"{_pct(share)} of CPU time stolen by the hypervisor over "
            f"{window.seconds:.1f} s (since boot {_pct(boot)}; warn above "
            f"{_limit(STEAL_WARN)}, fail above {_limit(STEAL_FAIL)})")
    fix = ("run on a quieter host or an instance with dedicated CPUs; results taken now "
           "will be labelled noisy")
    if share > STEAL_FAIL:
        return Check("steal", "fail", text, fix)
    if share > STEAL_WARN:
        return Check("steal", "warn", text, fix)
    return Check("steal", "ok", text)


def _check_psi(resource: str, limit: float, fix: str) -> Check:
    name = f"{resource} pressure"
    psi = noise.read_psi(resource)
    if psi is None or "avg10" not in psi.get("some", {}):
        return Check(name, "ok", "PSI not available (/proc/pressure absent or psi=0)")
    avg10 = psi["some"]["avg10"]
    what = "CPU" if resource == "cpu" else resource
    text = (f"some task waited for {what} {avg10:.2f} % of the last 10 s (PSI some avg10; "
            f"warn above {limit:g} %)")
    if avg10 > limit:
        return Check(name, "warn", text, fix)
    return Check(name, "ok", text)


def _check_swap(window: _Window) -> Check:
    swapped_in, swapped_out = window.swaps
    text = (f"{swapped_in} pages swapped in, {swapped_out} out during "
            f"{window.seconds:.1f} s (warn above 0)")
    if swapped_in or swapped_out:
        return Check("swap", "warn", text,
                     "free memory (close programs); swapping slows the tests at random")
    return Check("swap", "ok", text)


def _check_governor() -> Check:
    governors = noise.read_governors()
    if not governors:
        return Check("governor", "ok", "no cpufreq (typical of VMs): the host sets the "
                                       "frequency")
    slow = sorted(cpu for cpu, gov in governors.items() if gov == "powersave")
    kinds = sorted(set(governors.values()))
    if slow:
        return Check("governor", "warn",
                     f"powersave on {len(slow)} of {len(governors)} CPUs: the frequency "
                     "follows the load and results drift",
                     "cpupower frequency-set -g performance (or echo performance into "
                     "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)")
    return Check("governor", "ok", f"{', '.join(kinds)} on {len(governors)} CPUs")


def _check_throttling(window: _Window) -> Check:
    after = window.throttle_after
    if not after:
        return Check("throttling", "ok",
                     "no thermal_throttle counters (typical of VMs and non-x86)")
    core = sum(v for k, v in after.items() if k.endswith("/core_throttle_count"))
    package = max((v for k, v in after.items() if k.endswith("/package_throttle_count")),
                  default=0)
    grew = sum(1 for k, v in after.items() if v > window.throttle_before.get(k, v))
    text = f"thermal throttling since boot: {core} core, {package} package events"
    if grew:
        text += f"; counters grew during the check on {grew} CPU(s)"
    if core or package:
        return Check("throttling", "warn", text + " (warn above 0)",
                     "improve cooling or let the machine cool down; a throttled CPU "
                     "runs slower at random")
    return Check("throttling", "ok", text)


def _check_page_reporting() -> Check:
    if not noise.free_page_reporting():
        return Check("page reporting", "ok", "no virtio balloon free page reporting")
    order = noise.page_reporting_order()
    block = ""
    if order is not None:
        block = f" in blocks of {_size(os.sysconf('SC_PAGE_SIZE') * 2**order)}"
    return Check("page reporting", "warn",
                 f"the virtio balloon reports free pages{block}: memory freed in the guest "
                 "is returned to the host and is slow to touch again, so fork/exec and "
                 "file tests vary from run to run",
                 "nothing to change in the guest (the host enables it on the balloon "
                 "device): compare runs of this VM with care")


def _check_sudo_path() -> Check:
    sudo_user = os.environ.get("SUDO_USER")
    under_sudo = bool(sudo_user) or (os.geteuid() == 0 and "SUDO_COMMAND" in os.environ)
    if not under_sudo:
        return Check("sudo path", "ok", "not running under sudo")
    entries = {os.path.realpath(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p}
    missing = [d for d in ("/usr/sbin", "/sbin")
               if os.path.isdir(d) and os.path.realpath(d) not in entries]
    who = f"SUDO_USER={sudo_user}" if sudo_user else "SUDO_COMMAND set"
    if missing:
        return Check("sudo path", "warn",
                     f"under sudo ({who}) with a PATH that lacks {' and '.join(missing)}: "
                     "tools there are invisible",
                     'sudo env "PATH=$PATH:/usr/sbin:/sbin" osmark …, or add them to '
                     "secure_path in /etc/sudoers")
    return Check("sudo path", "ok", f"under sudo ({who}); PATH has /usr/sbin and /sbin")


def _tool_present(tool: str) -> bool:
    if os.path.isabs(tool):
        return os.path.isfile(tool) and os.access(tool, os.X_OK)
    return shutil.which(tool) is not None


def _check_tools(benchmarks: list[Benchmark]) -> Check:
    needed: dict[str, list[str]] = {}
    for spec in benchmarks:
        for tool in required_tools(spec):
            needed.setdefault(tool, []).append(spec.id)
    if not needed:
        return Check("tools", "ok", "the selected tests run no outside commands")
    missing = [tool for tool in needed if not _tool_present(tool)]
    if not missing:
        return Check("tools", "ok", f"{' '.join(needed)} found")
    users = sorted({spec_id for tool in missing for spec_id in needed[tool]})
    packages = sorted({DEBIAN_PACKAGES.get(t, os.path.basename(t)) for t in missing})
    return Check("tools", "fail",
                 f"missing {', '.join(missing)}, needed by {_names(users)}",
                 f"install them (Debian/Ubuntu: apt-get install {' '.join(packages)})")


def _check_cpus(benchmarks: list[Benchmark]) -> Check | None:
    cross = [spec.id for spec in benchmarks if spec.required_cpus > 1]
    if not cross:
        return None
    cpus = usable_cpus()
    if cpus >= 2:
        return Check("cpus", "ok", f"{cpus} usable CPUs for {_names(cross)}")
    return Check("cpus", "warn",
                 f"{_names(cross)} need 2 usable CPUs, osmark may use 1: they will be skipped",
                 "allow more CPUs (taskset -c, the cgroup's cpuset)")


def _check_workdir(workdir: Path, pairs: list[tuple[Benchmark, int]]) -> Check:
    if not workdir.exists():
        return Check("workdir", "fail", f"{workdir} does not exist",
                     "create it or choose another --workdir")
    if not workdir.is_dir():
        return Check("workdir", "fail", f"{workdir} is not a directory",
                     "choose another --workdir")
    if not os.access(workdir, os.W_OK | os.X_OK):
        return Check("workdir", "fail", f"{workdir} is not writable by this user",
                     "choose another --workdir")
    try:
        st = os.statvfs(workdir)
    except OSError as exc:
        return Check("workdir", "fail", f"{workdir}: cannot read free space ({exc.strerror})",
                     "choose another --workdir")
    free = st.f_bavail * st.f_frsize
    sized = [(workdir_bytes(spec, copies), spec, copies) for spec, copies in pairs]
    largest = max(sized, key=lambda item: item[0], default=(0, None, 0))
    written, spec, copies = largest
    if written == 0 or spec is None:
        return Check("workdir", "ok",
                     f"no selected test writes files ({_size(free)} free in {workdir})")
    need = int(written * (1 + SPACE_MARGIN_FRACTION)) + SPACE_MARGIN_BYTES
    detail = (f"the largest, {spec.id} at {copies} cop{'y' if copies == 1 else 'ies'}, "
              f"writes {_size(written)}; plus {_limit(SPACE_MARGIN_FRACTION)} and "
              f"{_size(SPACE_MARGIN_BYTES)} margin")
    if free < need:
        return Check("workdir", "fail",
                     f"needs {_size(need)} in {workdir}, only {_size(free)} free ({detail})",
                     "free space or choose another --workdir")
    return Check("workdir", "ok", f"needs {_size(need)} in {workdir}, {_size(free)} free "
                                  f"({detail})")


def _check_compiler() -> Check:
    try:
        toolchain = find_toolchain()
    except CompilerMissing as exc:
        message = str(exc)
        if message.endswith(": " + NO_COMPILER_FIX):
            message = message[: -len(NO_COMPILER_FIX) - 2]
        return Check("compiler", "fail", message, NO_COMPILER_FIX)
    return Check("compiler", "ok", f"{' '.join(toolchain.command)}: {toolchain.version}")


def run_checks(benchmarks: list[Benchmark], copies: list[int], workdir: Path,
               interval: float = 0.5) -> list[Check]:
    """Every check, for the selected tests at the given copy counts, in display order.

    Takes about `interval` seconds plus the compiler probe (cached per process).
    """
    window = _sample(interval)
    checks = [
        _check_processes(window),
        _check_load(),
        _check_steal(window),
        _check_psi("cpu", PSI_CPU_WARN,
                   "stop what is running or wait; tasks are queueing for CPU time"),
        _check_psi("memory", PSI_MEMORY_WARN,
                   "free memory (close programs); reclaim stalls the tests at random"),
        _check_swap(window),
        _check_governor(),
        _check_throttling(window),
        _check_page_reporting(),
        _check_workdir(workdir, plan(benchmarks, copies)),
        _check_tools(benchmarks),
    ]
    cpus = _check_cpus(benchmarks)
    if cpus is not None:
        checks.append(cpus)
    checks += [_check_sudo_path(), _check_compiler()]
    return checks


def failed(checks: list[Check]) -> bool:
    return any(check.status == "fail" for check in checks)
