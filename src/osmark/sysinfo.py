"""The host record, read from /proc and /sys (no subprocesses, no sleeps).

`collect_info` gathers everything `osmark info` shows and every result embeds: a nested
dict of plain JSON values. Every reader is tolerant: a file that does not exist reads as
"absent" (cpufreq in most VMs, DMI on Firecracker), one that cannot be read as
"unreadable", and neither ever raises. The roots PROC, SYS and ROOT are module globals
so tests can point them at a fake tree.
"""

from __future__ import annotations

import os
import platform
import re
import shlex
import shutil
import socket
import sys
from pathlib import Path
from typing import Any

PROC = Path("/proc")
SYS = Path("/sys")
ROOT = Path("/")  # for /.dockerenv, /run/.containerenv, the Kubernetes service account

ABSENT = "absent"
UNREADABLE = "unreadable"
NOT_PROBED = "not probed"

VIRT_KINDS = ("none", "kvm", "xen", "vmware", "hyper-v", "firecracker", "wsl", "qemu",
              "virtualbox", "vm")
CONTAINER_KINDS = ("none", "docker", "podman", "lxc", "kubernetes", "container")

# CPU flags worth showing: vector units, crypto, and what the timers and VMs depend on.
NOTABLE_FLAGS = (
    "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
    "avx512_bf16", "amx_tile", "sha_ni", "aes", "vaes", "vpclmulqdq", "rdrand", "rdseed",
    "hypervisor", "constant_tsc", "nonstop_tsc", "tsc_known_freq",
    # aarch64 ("Features" line)
    "asimd", "sve", "sve2", "sha2", "atomics",
)
# Root filesystem types that mean an image-layered (container) root.
_LAYERED_FS = ("overlay", "aufs", "fuse-overlayfs")


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text(errors="replace")
    except (OSError, ValueError):
        return ""


def _value(path: Path) -> str:
    """The file's stripped text, "absent" if it does not exist, "unreadable" otherwise."""
    try:
        return path.read_text(errors="replace").strip()
    except (FileNotFoundError, NotADirectoryError):
        return ABSENT
    except (OSError, ValueError):
        return UNREADABLE


def _known(value: str) -> bool:
    return value not in (ABSENT, UNREADABLE)


def _bracketed(value: str) -> str:
    """The selected word of a sysfs choice list: "always [madvise] never" -> "madvise"."""
    match = re.search(r"\[([^\]]*)\]", value)
    return match.group(1) if match else value


def _listdir(path: Path) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def _cpu_list_count(text: str) -> int | None:
    """How many CPUs a list like "0-3,8,10-11" names (None if it does not parse)."""
    count = 0
    try:
        for part in text.strip().split(","):
            if not part:
                continue
            lo, _, hi = part.partition("-")
            count += int(hi or lo) - int(lo) + 1
    except ValueError:
        return None
    return count


def _size_bytes(text: str) -> int | None:
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text, re.IGNORECASE)
    if not match:
        return None
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[match.group(2).upper()]
    return int(match.group(1)) * scale


def _int(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        return text


def _yes_no(value: str, yes: str = "1") -> str:
    return value if not _known(value) else ("yes" if value == yes else "no")


# -- the small readers the host record has always used -------------------------------

def _cpuinfo_first_block() -> dict[str, str]:
    """The fields of the first processor in /proc/cpuinfo (plus later unique keys)."""
    fields: dict[str, str] = {}
    for line in _read(PROC / "cpuinfo").splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if sep and key and key not in fields:
            fields[key] = value.strip()
    return fields


def cpu_model() -> str:
    for line in _read(PROC / "cpuinfo").splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Hardware", "cpu model", "Processor") and value.strip():
            return value.strip()
    return platform.processor() or "unknown"


def _meminfo() -> dict[str, int]:
    """/proc/meminfo in bytes (HugePages_* counts stay counts)."""
    values: dict[str, int] = {}
    for line in _read(PROC / "meminfo").splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key] = int(parts[0]) * (1024 if parts[1:] == ["kB"] else 1)
    return values


def memory_bytes() -> int:
    return _meminfo().get("MemTotal", 0)


def os_name() -> str:
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME", "Linux")
    except OSError:
        return platform.system()


def usable_cpu_ids() -> list[int]:
    """The CPUs this process may run on (its affinity), in order."""
    return sorted(os.sched_getaffinity(0))


def usable_cpus() -> int:
    return len(usable_cpu_ids())


# -- sections --------------------------------------------------------------------------

def _cpu() -> dict[str, Any]:
    fields = _cpuinfo_first_block()
    cpu_dir = SYS / "devices/system/cpu"
    online = _value(cpu_dir / "online")
    flags = set((fields.get("flags") or fields.get("Features") or "").split())

    packages: set[str] = set()
    cores: set[tuple[str, str]] = set()
    threads = 0
    for name in _listdir(cpu_dir):
        if not re.fullmatch(r"cpu\d+", name):
            continue
        package = _value(cpu_dir / name / "topology/physical_package_id")
        core = _value(cpu_dir / name / "topology/core_id")
        if _known(package) and _known(core):
            packages.add(package)
            cores.add((package, core))
            threads += 1
    topology: dict[str, Any]
    if cores:
        topology = {"sockets": len(packages), "cores_per_socket": len(cores) // len(packages),
                    "threads_per_core": threads // len(cores)}
    else:
        topology = {"sockets": ABSENT, "cores_per_socket": ABSENT, "threads_per_core": ABSENT}

    caches: dict[str, Any] = {}
    cache_dir = cpu_dir / "cpu0/cache"
    for index in _listdir(cache_dir):
        if not index.startswith("index"):
            continue
        level = _value(cache_dir / index / "level")
        kind = _value(cache_dir / index / "type")
        if not _known(level):
            continue
        name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
        size = _value(cache_dir / index / "size")
        shared = _value(cache_dir / index / "shared_cpu_list")
        caches[name] = {
            "size_bytes": _size_bytes(size) if _known(size) else size,
            "type": kind,
            "shared_by_cpus": _cpu_list_count(shared) if _known(shared) else shared,
        }

    try:
        usable: int | str = len(os.sched_getaffinity(0))
    except OSError:
        usable = UNREADABLE
    return {
        "model": cpu_model(),
        "vendor": fields.get("vendor_id") or fields.get("CPU implementer") or ABSENT,
        "arch": platform.machine(),
        "family": fields.get("cpu family", ABSENT),
        "model_number": fields.get("model", ABSENT),
        "stepping": fields.get("stepping", ABSENT),
        "microcode": fields.get("microcode", ABSENT),
        "logical_cpus": _cpu_list_count(online) if _known(online) else os.cpu_count(),
        "online": online,
        "usable_cpus": usable,
        **topology,
        "smt": {"control": _value(cpu_dir / "smt/control"),
                "active": _yes_no(_value(cpu_dir / "smt/active"))},
        "isolated": _value(cpu_dir / "isolated") or "none",
        "nohz_full": _value(cpu_dir / "nohz_full"),
        "caches": caches,
        "flags": [flag for flag in NOTABLE_FLAGS if flag in flags],
        "flag_count": len(flags),
    }


def _frequency() -> dict[str, Any]:
    cpu_dir = SYS / "devices/system/cpu"
    policy = cpu_dir / "cpu0/cpufreq"
    governors = set()
    for name in _listdir(cpu_dir):
        if re.fullmatch(r"cpu\d+", name):
            governor = _value(cpu_dir / name / "cpufreq/scaling_governor")
            if _known(governor):
                governors.add(governor)
    governor = _value(policy / "scaling_governor")
    if len(governors) > 1:
        governor = "mixed: " + ", ".join(sorted(governors))

    boost = _value(cpu_dir / "cpufreq/boost")
    if _known(boost):
        boost = "on" if boost == "1" else "off"
        boost_source = "cpufreq/boost"
    else:
        no_turbo = _value(cpu_dir / "intel_pstate/no_turbo")
        boost_source = "intel_pstate/no_turbo" if _known(no_turbo) else ABSENT
        boost = ("off" if no_turbo == "1" else "on") if _known(no_turbo) else no_turbo

    def khz(name: str) -> int | str:
        value = _value(policy / name)
        return _int(value) if _known(value) else value

    return {
        "governor": governor,
        "driver": _value(policy / "scaling_driver"),
        "energy_performance_preference": _value(policy / "energy_performance_preference"),
        "boost": boost,
        "boost_source": boost_source,
        "min_khz": khz("scaling_min_freq"),
        "max_khz": khz("scaling_max_freq"),
        "hardware_max_khz": khz("cpuinfo_max_freq"),
        "cpuidle_driver": _value(cpu_dir / "cpuidle/current_driver"),
        "cpuidle_governor": _value(cpu_dir / "cpuidle/current_governor"),
    }


def _cmdline_param(cmdline: str, name: str) -> str:
    """A kernel parameter's value (the last one wins); only the part before "--"."""
    found = ABSENT
    for word in cmdline.split():
        if word == "--":
            break
        key, sep, value = word.partition("=")
        if key == name:
            found = value if sep else ""
    return found


def _memory() -> dict[str, Any]:
    meminfo = _meminfo()
    node_dir = SYS / "devices/system/node"
    nodes = [name for name in _listdir(node_dir) if re.fullmatch(r"node\d+", name)]
    thp = SYS / "kernel/mm/transparent_hugepage"
    reporting = SYS / "module/page_reporting/parameters"
    order = _value(reporting / "page_reporting_order")
    page_reporting: dict[str, Any] = {"order": _int(order) if _known(order) else order}
    if _known(order):
        reported = _value(reporting / "reported_kib")
        if _known(reported):
            page_reporting["reported_kib"] = _int(reported)
    cmdline_order = _cmdline_param(_read(PROC / "cmdline"), "page_reporting.page_reporting_order")
    if cmdline_order != ABSENT:
        page_reporting["cmdline_order"] = _int(cmdline_order)
    return {
        "total_bytes": meminfo.get("MemTotal", ABSENT),
        "available_bytes": meminfo.get("MemAvailable", ABSENT),
        "swap_total_bytes": meminfo.get("SwapTotal", ABSENT),
        "swap_free_bytes": meminfo.get("SwapFree", ABSENT),
        "numa_nodes": len(nodes) if nodes else ABSENT,
        "numa_node_names": nodes,
        "hugepages_total": meminfo.get("HugePages_Total", ABSENT),
        "hugepage_size_bytes": meminfo.get("Hugepagesize", ABSENT),
        "transparent_hugepages": {
            "enabled": _bracketed(_value(thp / "enabled")),
            "defrag": _bracketed(_value(thp / "defrag")),
        },
        # Free page reporting: memory the guest frees goes back to the host, and touching
        # it again costs page faults on the host side (it matters for memory benchmarks).
        "page_reporting": page_reporting,
    }


def _preemption(version: str) -> dict[str, str]:
    words = version.split()
    if "PREEMPT_RT" in words:
        model = "PREEMPT_RT"
    elif "PREEMPT_DYNAMIC" in words:
        model = "PREEMPT_DYNAMIC"
    elif "PREEMPT" in words:
        model = "PREEMPT"
    else:
        model = "none"
    current = _value(SYS / "kernel/debug/sched/preempt")
    if _known(current):
        match = re.search(r"\((\w+)\)", current)
        current = match.group(1) if match else current
    return {"model": model, "dynamic_current": current}


def _kernel() -> dict[str, Any]:
    uname = os.uname()
    cmdline = _value(PROC / "cmdline")
    clock = SYS / "devices/system/clocksource/clocksource0"
    available = _value(clock / "available_clocksource")
    vulnerabilities: dict[str, str] = {}
    vuln_dir = SYS / "devices/system/cpu/vulnerabilities"
    for name in _listdir(vuln_dir):
        vulnerabilities[name] = _value(vuln_dir / name)
    aslr = _value(PROC / "sys/kernel/randomize_va_space")
    aslr_meaning = {"0": "off", "1": "conservative", "2": "full"}.get(aslr, aslr)
    return {
        "release": uname.release,
        "version": uname.version,
        "cmdline": cmdline,
        "mitigations_param": _cmdline_param(cmdline if _known(cmdline) else "", "mitigations"),
        "preemption": _preemption(uname.version),
        "clocksource": _value(clock / "current_clocksource"),
        "clocksources_available": available.split() if _known(available) else available,
        "vulnerabilities": vulnerabilities or ABSENT,
        "aslr": aslr_meaning if aslr == aslr_meaning else f"{aslr} ({aslr_meaning})",
        "io_uring_disabled": _value(PROC / "sys/kernel/io_uring_disabled"),
    }


def _os() -> dict[str, Any]:
    try:
        release = platform.freedesktop_os_release()
    except OSError:
        release = {}
    return {
        "pretty_name": release.get("PRETTY_NAME", ABSENT),
        "id": release.get("ID", ABSENT),
        "version_id": release.get("VERSION_ID", ABSENT),
        "hostname": socket.gethostname(),
    }


# -- virtualization and containers -----------------------------------------------------

_DMI_RULES: tuple[tuple[str, str], ...] = (
    # (substring of "sys_vendor | product_name | bios_vendor", lowercased) -> kind
    ("vmware", "vmware"),
    ("virtualbox", "virtualbox"),
    ("innotek", "virtualbox"),
    ("microsoft corporation | virtual machine", "hyper-v"),
    ("xen", "xen"),
    ("kvm", "kvm"),
    ("openstack", "kvm"),
    ("kubevirt", "kvm"),
    ("google", "kvm"),  # Compute Engine runs on KVM
    ("amazon ec2", "kvm"),  # Nitro is KVM-based; Xen-era instances say "Xen"
    ("qemu", "qemu"),  # refined to kvm below when kvm-clock is offered
    ("bochs", "qemu"),
    ("parallels", "vm"),
    ("bhyve", "vm"),
    ("cloud hypervisor", "vm"),
)


def _mounts() -> list[dict[str, str]]:
    """/proc/self/mountinfo, in order (a later mount on the same point hides an earlier)."""
    mounts = []
    for line in _read(PROC / "self/mountinfo").splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 6 or len(tail) < 2:
            continue
        mounts.append({
            "device_number": fields[2],
            "root": _unescape(fields[3]),
            "mount_point": _unescape(fields[4]),
            "options": fields[5],
            "fstype": tail[0],
            "source": _unescape(tail[1]),
            "super_options": tail[2] if len(tail) > 2 else "",
        })
    return mounts


def _unescape(text: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def _mount_for(path: str, mounts: list[dict[str, str]]) -> dict[str, str] | None:
    best: dict[str, str] | None = None
    for mount in mounts:
        point = mount["mount_point"]
        inside = path == point or path.startswith(point.rstrip("/") + "/") or point == "/"
        if inside and (best is None or len(point) >= len(best["mount_point"])):
            best = mount
    return best


def _environ_of_pid1() -> dict[str, str]:
    env = {}
    for item in _read(PROC / "1/environ").split("\0"):
        key, sep, value = item.partition("=")
        if sep:
            env[key] = value
    return env


def _virtualization_kind(evidence: list[str]) -> str:
    osrelease = _value(PROC / "sys/kernel/osrelease")
    if _known(osrelease) and "microsoft" in osrelease.lower():
        evidence.append(f"/proc/sys/kernel/osrelease: {osrelease}")
        return "wsl"

    hv_type = _value(SYS / "hypervisor/type")
    if _known(hv_type) and hv_type:
        evidence.append(f"/sys/hypervisor/type: {hv_type}")
        return "xen" if hv_type == "xen" else "vm"
    if _exists(PROC / "xen"):
        evidence.append("/proc/xen present")
        return "xen"

    flags = (_cpuinfo_first_block().get("flags") or "").split()
    hypervisor_flag = "hypervisor" in flags
    available = _value(SYS / "devices/system/clocksource/clocksource0/available_clocksource")
    kvm_clock = _known(available) and "kvm-clock" in available.split()

    dmi_dir = SYS / "class/dmi/id"
    dmi = {name: _value(dmi_dir / name) for name in ("sys_vendor", "product_name", "bios_vendor")}
    if any(_known(v) for v in dmi.values()):
        shown = ", ".join(f"{k}={v!r}" for k, v in dmi.items() if _known(v))
        haystack = " | ".join(v for v in dmi.values() if _known(v)).lower()
        for needle, kind in _DMI_RULES:
            if needle in haystack:
                evidence.append(f"DMI {shown}")
                if kind in ("qemu", "vm") and kvm_clock:
                    evidence.append("clocksource kvm-clock available")
                    return "kvm"
                return kind
        if not hypervisor_flag:
            evidence.append(f"DMI {shown}")
            evidence.append("no hypervisor flag in /proc/cpuinfo")
            return "none"
    else:
        evidence.append("/sys/class/dmi/id absent")

    if _exists(SYS / "bus/vmbus"):
        evidence.append("/sys/bus/vmbus present")
        return "hyper-v"

    cmdline = _read(PROC / "cmdline")
    hints = [word for word in cmdline.split()
             if "firecracker" in word.lower() or word.startswith("virtio_mmio.device=")]
    hints += [f"/sys/bus/platform/devices/{name}"
              for name in _listdir(SYS / "bus/platform/devices")
              if "virtio-mmio" in name or "virtio_mmio" in name or name.startswith("LNRO0005")]
    if hypervisor_flag:
        evidence.append("cpuinfo flag: hypervisor")
    if hints and not any(_known(v) for v in dmi.values()):
        evidence.append("Firecracker hints: " + ", ".join(hints[:3]))
        return "firecracker"
    if kvm_clock and hypervisor_flag:
        evidence.append("clocksource kvm-clock available")
        return "kvm"
    if hypervisor_flag:
        return "vm"
    evidence.append("no hypervisor flag in /proc/cpuinfo")
    return "none"


def _container_kind(evidence: list[str]) -> str:
    env = {**_environ_of_pid1(), **{k: v for k, v in os.environ.items()
                                    if k in ("container", "KUBERNETES_SERVICE_HOST")}}
    cgroup = _read(PROC / "1/cgroup") or _read(PROC / "self/cgroup")
    cgroup_paths = [line.split(":", 2)[2] for line in cgroup.splitlines() if line.count(":") >= 2]
    root = next((m for m in reversed(_mounts()) if m["mount_point"] == "/"), None)
    layered_root = root is not None and root["fstype"] in _LAYERED_FS
    rooted_elsewhere = root is not None and root["root"] != "/"

    if "KUBERNETES_SERVICE_HOST" in env:
        evidence.append("environment: KUBERNETES_SERVICE_HOST set")
        return "kubernetes"
    if _exists(ROOT / "var/run/secrets/kubernetes.io/serviceaccount"):
        evidence.append("/var/run/secrets/kubernetes.io/serviceaccount present")
        return "kubernetes"
    if any("kubepods" in path for path in cgroup_paths):
        evidence.append("/proc/1/cgroup: kubepods")
        return "kubernetes"

    if _exists(ROOT / "run/.containerenv"):
        evidence.append("/run/.containerenv present")
        return "podman"
    if env.get("container") == "podman":
        evidence.append("environment: container=podman")
        return "podman"
    if env.get("container") in ("lxc", "lxc-libvirt"):
        evidence.append(f"environment: container={env['container']}")
        return "lxc"
    if any("/lxc/" in path or "lxc.payload" in path for path in cgroup_paths):
        evidence.append("/proc/1/cgroup: lxc")
        return "lxc"

    docker_cgroup = any("docker" in path for path in cgroup_paths)
    if _exists(ROOT / ".dockerenv"):
        docker_root = layered_root or rooted_elsewhere or (
            root is not None and "docker" in root["source"])
        if docker_root or docker_cgroup:
            evidence.append("/.dockerenv present")
            if layered_root:
                evidence.append(f"root filesystem: {root['fstype']}")
            return "docker"
        # A VM or machine image made from a Docker image keeps the empty marker file;
        # with a block-device root and no container cgroup it is not a container.
        where = f"{root['fstype']} on {root['source']}" if root else "unknown"
        evidence.append(f"/.dockerenv present but ignored: / is {where}, "
                        "/proc/1/cgroup names no container")
    if docker_cgroup:
        evidence.append("/proc/1/cgroup: docker")
        return "docker"
    if env.get("container"):
        evidence.append(f"environment: container={env['container']}")
        return "container"
    if layered_root:
        evidence.append(f"root filesystem: {root['fstype']}")
        return "container"
    return "none"


def _virtualization() -> dict[str, Any]:
    evidence: list[str] = []
    kind = _virtualization_kind(evidence)
    container = _container_kind(evidence)
    return {"kind": kind, "container": container, "evidence": evidence}


def virtualization_label(info: dict[str, Any]) -> str:
    """One word for the record: "firecracker", "kvm", "kvm+docker", "docker", "none"."""
    virt = info.get("virtualization", info)
    kind = virt.get("kind", "unknown") if isinstance(virt, dict) else "unknown"
    container = virt.get("container", "none") if isinstance(virt, dict) else "none"
    if container in ("none", None):
        return kind
    return container if kind == "none" else f"{kind}+{container}"


# -- security, storage, compiler, python -----------------------------------------------

def _security() -> dict[str, Any]:
    enforce = _value(SYS / "fs/selinux/enforce")
    selinux = {"1": "enforcing", "0": "permissive"}.get(enforce, enforce)
    if enforce == ABSENT and _exists(SYS / "fs/selinux"):
        selinux = "disabled"
    apparmor = _value(SYS / "module/apparmor/parameters/enabled")
    apparmor = {"Y": "enabled", "N": "disabled"}.get(apparmor, apparmor)
    profiles_file = SYS / "kernel/security/apparmor/profiles"
    profiles: int | str = _value(profiles_file)
    if _known(profiles):
        profiles = len([line for line in str(profiles).splitlines() if line.strip()])
    lsm = _value(SYS / "kernel/security/lsm")
    modules = [m for m in lsm.split(",") if m] if _known(lsm) else lsm
    auditd = False
    for pid in _listdir(PROC):
        if pid.isdigit() and _read(PROC / pid / "comm").strip() == "auditd":
            auditd = True
            break

    def listed(name: str) -> str:
        return ("yes" if name in modules else "no") if isinstance(modules, list) else "unknown"

    return {
        "selinux": selinux,
        "apparmor": apparmor,
        "apparmor_profiles": profiles,
        "lsm": modules,
        "tomoyo": listed("tomoyo"),
        "landlock": listed("landlock"),
        "lockdown": _bracketed(_value(SYS / "kernel/security/lockdown")),
        "auditd_running": "yes" if auditd else "no",
    }


def _block_queue(mount: dict[str, str]) -> tuple[str, Path | None]:
    """The whole disk under a mount: (name, its /sys/class/block dir) or ("absent", None)."""
    device: Path | None = None
    major = mount["device_number"].split(":")[0]
    if major not in ("0", ""):
        candidate = SYS / "dev/block" / mount["device_number"]
        if _exists(candidate):
            device = Path(os.path.realpath(candidate))
    if device is None and mount["source"].startswith("/dev/"):
        name = os.path.basename(os.path.realpath(mount["source"]))
        candidate = SYS / "class/block" / name
        if _exists(candidate):
            device = Path(os.path.realpath(candidate))
    if device is None:
        return ABSENT, None
    if _exists(device / "partition"):
        device = device.parent
    return device.name, device


def _storage(workdir: Path) -> dict[str, Any]:
    path = os.path.realpath(workdir)
    mount = _mount_for(path, _mounts())
    result: dict[str, Any] = {"path": path}
    if mount is None:
        result.update(mount_point=ABSENT, fstype=ABSENT, source=ABSENT, mount_options=ABSENT,
                      device=ABSENT, rotational=ABSENT, scheduler=ABSENT)
    else:
        disk, disk_dir = _block_queue(mount)
        rotational = _value(disk_dir / "queue/rotational") if disk_dir else ABSENT
        scheduler = _value(disk_dir / "queue/scheduler") if disk_dir else ABSENT
        options = mount["options"].split(",")
        options += [o for o in mount["super_options"].split(",") if o and o not in options]
        result.update(
            mount_point=mount["mount_point"], fstype=mount["fstype"], source=mount["source"],
            mount_options=",".join(options), device=disk,
            rotational=_yes_no(rotational), scheduler=_bracketed(scheduler))
    try:
        st = os.statvfs(path)
        result["free_bytes"] = st.f_bavail * st.f_frsize
        result["total_bytes"] = st.f_blocks * st.f_frsize
    except OSError:
        result["free_bytes"] = result["total_bytes"] = UNREADABLE
    return result


def _compiler(toolchain: Any) -> dict[str, Any]:
    if toolchain is not None and hasattr(toolchain, "command"):
        command = list(toolchain.command)
        return {"command": " ".join(command), "path": shutil.which(command[0]) or ABSENT,
                "version": toolchain.version, "cflags": list(toolchain.cflags), "probed": True}
    try:
        command = shlex.split(os.environ.get("CC") or "cc")
    except ValueError:
        command = []
    name = command[0] if command else "cc"
    return {"command": " ".join(command) or name, "path": shutil.which(name) or ABSENT,
            "version": NOT_PROBED, "cflags": NOT_PROBED, "probed": False}


def _python() -> dict[str, Any]:
    return {"version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable}


def collect_info(workdir: Path | None = None, toolchain: Any = None) -> dict[str, Any]:
    """The whole host record as plain JSON values; pure reads, no subprocess, no sleep.

    `toolchain` is an osmark.kernels.build.Toolchain when the caller has one; without it
    the compiler section names what $CC (else cc) resolves to and does not run it.
    """
    if workdir is None:
        import tempfile
        workdir = Path(tempfile.gettempdir())
    sections = {
        "cpu": _cpu,
        "frequency": _frequency,
        "memory": _memory,
        "kernel": _kernel,
        "os": _os,
        "virtualization": _virtualization,
        "security": _security,
        "storage": lambda: _storage(Path(workdir)),
        "compiler": lambda: _compiler(toolchain),
        "python": _python,
    }
    info: dict[str, Any] = {}
    for name, reader in sections.items():
        try:
            info[name] = reader()
        except Exception as exc:  # a surprise on an odd host must not lose the record
            info[name] = {"error": f"{type(exc).__name__}: {exc}"}
    return info
