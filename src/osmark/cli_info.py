"""`osmark info`: the host record every result embeds, as a console view or JSON.

Imports stay light so the command starts fast: the record is collected by
osmark.sysinfo (pure /proc and /sys reads), the view is plain click output (no rich),
and nothing here touches the benchmark engine or runs the compiler.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from osmark.cli_base import fail_usage


def _size(value: Any) -> str:
    if not isinstance(value, int):
        return str(value)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            number = value / scale
            return f"{number:.0f} {unit}" if number == int(number) else f"{number:.1f} {unit}"
    return f"{value} B"


def _plural(count: Any, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _cpu_rows(cpu: dict[str, Any]) -> list[tuple[str, str]]:
    caches = []
    for name, cache in (cpu.get("caches") or {}).items():
        shared = cache.get("shared_by_cpus")
        share = "per CPU" if shared == 1 else f"shared by {shared}"
        caches.append(f"{name} {_size(cache.get('size_bytes'))} ({share})")
    topology = (f"{_plural(cpu.get('sockets'), 'socket')} × "
                f"{_plural(cpu.get('cores_per_socket'), 'core')} × "
                f"{_plural(cpu.get('threads_per_core'), 'thread')}")
    smt = cpu.get("smt") or {}
    return [
        ("model", f"{cpu.get('model')} ({cpu.get('vendor')}, {cpu.get('arch')})"),
        ("family/model/stepping",
         f"{cpu.get('family')}/{cpu.get('model_number')}/{cpu.get('stepping')}"),
        ("microcode", str(cpu.get("microcode"))),
        ("CPUs", f"{cpu.get('logical_cpus')} online ({cpu.get('online')}), "
                 f"{cpu.get('usable_cpus')} usable"),
        ("topology", topology),
        ("SMT", f"control {smt.get('control')}, active {smt.get('active')}"),
        ("isolated / nohz_full", f"{cpu.get('isolated')} / {cpu.get('nohz_full')}"),
        ("caches", ", ".join(caches) or "absent"),
        ("notable flags", " ".join(cpu.get("flags") or []) or "none"),
    ]


def _frequency_rows(freq: dict[str, Any]) -> list[tuple[str, str]]:
    def khz(key: str) -> str:
        value = freq.get(key)
        return f"{value / 1000:.0f} MHz" if isinstance(value, int) else str(value)

    return [
        ("governor", str(freq.get("governor"))),
        ("driver", str(freq.get("driver"))),
        ("energy/perf preference", str(freq.get("energy_performance_preference"))),
        ("boost", f"{freq.get('boost')}"
                  + (f" ({freq.get('boost_source')})" if freq.get("boost_source") != "absent"
                     else "")),
        ("min / max", f"{khz('min_khz')} / {khz('max_khz')} "
                      f"(hardware max {khz('hardware_max_khz')})"),
        ("cpuidle", f"{freq.get('cpuidle_driver')} (governor {freq.get('cpuidle_governor')})"),
    ]


def _memory_rows(mem: dict[str, Any]) -> list[tuple[str, str]]:
    thp = mem.get("transparent_hugepages") or {}
    reporting = mem.get("page_reporting") or {}
    report = str(reporting.get("order"))
    if reporting.get("order") not in ("absent", None):
        report = f"on, order {reporting.get('order')}"
        if "cmdline_order" in reporting:
            report += f" (cmdline asks {reporting['cmdline_order']})"
        report += ": freed guest memory returns to the host, slow to touch again"
    return [
        ("total", f"{_size(mem.get('total_bytes'))} "
                  f"({_size(mem.get('available_bytes'))} available)"),
        ("swap", f"{_size(mem.get('swap_total_bytes'))} "
                 f"({_size(mem.get('swap_free_bytes'))} free)"),
        ("NUMA nodes", str(mem.get("numa_nodes"))),
        ("huge pages", f"{mem.get('hugepages_total')} × {_size(mem.get('hugepage_size_bytes'))}"),
        ("transparent hugepages", f"enabled {thp.get('enabled')}, defrag {thp.get('defrag')}"),
        ("free page reporting", report),
    ]


def _kernel_rows(kernel: dict[str, Any]) -> list[tuple[str, str]]:
    preempt = kernel.get("preemption") or {}
    preemption = str(preempt.get("model"))
    if preempt.get("dynamic_current") not in ("absent", None):
        preemption += f" (now {preempt.get('dynamic_current')})"
    available = kernel.get("clocksources_available")
    available = " ".join(available) if isinstance(available, list) else str(available)
    rows = [
        ("release", str(kernel.get("release"))),
        ("version", str(kernel.get("version"))),
        ("command line", str(kernel.get("cmdline"))),
        ("preemption", preemption),
        ("clocksource", f"{kernel.get('clocksource')} (available: {available})"),
        ("ASLR", str(kernel.get("aslr"))),
        ("io_uring_disabled", str(kernel.get("io_uring_disabled"))),
        ("mitigations=", str(kernel.get("mitigations_param"))),
        ("vulnerabilities", ""),
    ]
    vulnerabilities = kernel.get("vulnerabilities")
    if isinstance(vulnerabilities, dict):
        unaffected = 0
        for name, status in vulnerabilities.items():
            if status == "Not affected":
                unaffected += 1
            else:
                rows.append((f"  {name}", str(status)))
        rows.append(("  not affected", _plural(unaffected, "other")))
    else:
        rows.append(("vulnerabilities", str(vulnerabilities)))
    return rows


def _security_rows(sec: dict[str, Any]) -> list[tuple[str, str]]:
    lsm = sec.get("lsm")
    apparmor = str(sec.get("apparmor"))
    if isinstance(sec.get("apparmor_profiles"), int):
        apparmor += f" ({_plural(sec['apparmor_profiles'], 'profile')} loaded)"
    return [
        ("LSMs", ",".join(lsm) if isinstance(lsm, list) else str(lsm)),
        ("SELinux", str(sec.get("selinux"))),
        ("AppArmor", apparmor),
        ("TOMOYO / Landlock", f"{sec.get('tomoyo')} / {sec.get('landlock')}"),
        ("lockdown", str(sec.get("lockdown"))),
        ("auditd running", str(sec.get("auditd_running"))),
    ]


def _storage_rows(st: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        ("path", str(st.get("path"))),
        ("mount", f"{st.get('mount_point')}: {st.get('fstype')} on {st.get('source')}"),
        ("options", str(st.get("mount_options"))),
        ("device", f"{st.get('device')} (rotational {st.get('rotational')}, "
                   f"scheduler {st.get('scheduler')})"),
        ("space", f"{_size(st.get('free_bytes'))} free of {_size(st.get('total_bytes'))}"),
    ]


def info_rows(info: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """The console view as plain text: (section title, [(key, value), …])."""
    from osmark.sysinfo import virtualization_label

    def section(name: str, build) -> list[tuple[str, str]]:
        data = info.get(name) or {}
        if "error" in data:
            return [("error", str(data["error"]))]
        return build(data)

    virt = info.get("virtualization") or {}
    compiler = info.get("compiler") or {}
    cflags = compiler.get("cflags")
    osr = info.get("os") or {}
    py = info.get("python") or {}
    return [
        ("CPU", section("cpu", _cpu_rows)),
        ("Frequency", section("frequency", _frequency_rows)),
        ("Memory", section("memory", _memory_rows)),
        ("Kernel", section("kernel", _kernel_rows)),
        ("OS", [("name", f"{osr.get('pretty_name')} (id {osr.get('id')}, "
                         f"version {osr.get('version_id')})"),
                ("hostname", str(osr.get("hostname")))]),
        ("Virtualization", [("label", virtualization_label(info)),
                            ("hypervisor", str(virt.get("kind"))),
                            ("container", str(virt.get("container"))),
                            *[("evidence", str(e)) for e in virt.get("evidence") or []]]),
        ("Security", section("security", _security_rows)),
        ("Storage", section("storage", _storage_rows)),
        ("Compiler", [("command", f"{compiler.get('command')} ({compiler.get('path')})"),
                      ("version", str(compiler.get("version"))),
                      ("cflags", " ".join(cflags) if isinstance(cflags, list) else str(cflags))]),
        ("Python", [("version", f"{py.get('implementation')} {py.get('version')}"),
                    ("executable", str(py.get("executable")))]),
    ]


def _render(info: dict[str, Any]) -> None:
    """Aligned key/value lines, one block per section; long values wrap under themselves.

    Plain click output rather than a rich table: no trailing padding in pipes, and the
    command skips rich's import time.
    """
    import shutil
    import textwrap

    sections = info_rows(info)
    key_width = max(len(key) for _, rows in sections for key, _ in rows) + 2
    width = shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 120
    value_width = max(width - key_width - 2, 40)
    lines = []
    for n, (title, rows) in enumerate(sections):
        if n:
            lines.append("")
        lines.append(click.style(title, bold=True))
        for key, value in rows:
            wrapped = textwrap.wrap(value, value_width, break_on_hyphens=False) or [""]
            pad = " " * (key_width - len(key))
            lines.append(f"  {click.style(key, dim=True)}{pad}{wrapped[0]}".rstrip())
            lines.extend(" " * (key_width + 2) + more for more in wrapped[1:])
    click.echo("\n".join(lines))


@click.command("info", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--json", "as_json", is_flag=True, help="Print the record as indented JSON.")
@click.option("--workdir", metavar="DIR", default=None,
              help="Directory whose storage to describe (default: the system temp dir).")
def info(as_json: bool, workdir: str | None) -> None:
    """Describe this host: CPU, frequency policy, memory, kernel, OS, virtualization,
    security modules, the workdir's storage, compiler and Python.

    Everything is read from /proc and /sys in a few milliseconds; every result file
    embeds the same record.
    """
    from pathlib import Path

    if workdir is not None and not os.path.isdir(workdir):
        fail_usage(f"--workdir {workdir}: not a directory")

    from osmark.sysinfo import collect_info

    record = collect_info(Path(workdir) if workdir is not None else None)
    if as_json:
        click.echo(json.dumps(record, indent=2))
    else:
        _render(record)
