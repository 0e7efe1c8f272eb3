"""The host record (`osmark info`): checked against this machine's /proc and /sys, and
against fake trees for the cases this machine cannot show (Docker, WSL, VMware, KVM…)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from osmark import sysinfo
from osmark.cli_info import info as info_command
from osmark.kernels.build import Toolchain

SECTIONS = {"cpu", "frequency", "memory", "kernel", "os", "virtualization", "security",
            "storage", "compiler", "python"}
CPU = Path("/sys/devices/system/cpu")


def read(path: str | Path) -> str:
    return Path(path).read_text().strip()


@pytest.fixture(scope="module")
def record() -> dict:
    return sysinfo.collect_info()


# -- this machine ----------------------------------------------------------------------

def test_all_sections_and_json_round_trip(record):
    assert set(record) == SECTIONS
    assert not [name for name, section in record.items() if "error" in section]
    assert json.loads(json.dumps(record)) == record


def test_cpu_matches_proc_and_sys(record):
    cpu = record["cpu"]
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.MULTILINE)
    if model:
        assert cpu["model"] == model.group(1).strip()
    vendor = re.search(r"^vendor_id\s*:\s*(.*)$", cpuinfo, re.MULTILINE)
    if vendor:
        assert cpu["vendor"] == vendor.group(1).strip()
    assert cpu["logical_cpus"] == os.cpu_count()
    assert cpu["usable_cpus"] == len(os.sched_getaffinity(0))
    flags = set(re.search(r"^(?:flags|Features)\s*:(.*)$", cpuinfo, re.MULTILINE)
                .group(1).split())
    assert set(cpu["flags"]) == flags & set(sysinfo.NOTABLE_FLAGS)
    if (CPU / "cpu0/topology/core_id").exists():
        assert cpu["sockets"] * cpu["cores_per_socket"] * cpu["threads_per_core"] \
            == cpu["logical_cpus"]


def test_caches_equal_the_sys_files(record):
    indexes = sorted((CPU / "cpu0/cache").glob("index*"))
    if not indexes:
        pytest.skip("no cache information in /sys on this machine")
    units = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    for index in indexes:
        level, kind, size = (read(index / f) for f in ("level", "type", "size"))
        name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
        expected = int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)
        cache = record["cpu"]["caches"][name]
        assert cache["size_bytes"] == expected, name
        shared = read(index / "shared_cpu_list")
        count = sum(int(p.partition("-")[2] or p) - int(p.partition("-")[0]) + 1
                    for p in shared.split(","))
        assert cache["shared_by_cpus"] == count, name


def test_memory_matches_meminfo(record):
    meminfo = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    memory = record["memory"]
    assert memory["total_bytes"] == int(meminfo["MemTotal"].split()[0]) * 1024
    assert memory["swap_total_bytes"] == int(meminfo["SwapTotal"].split()[0]) * 1024
    nodes = [p for p in Path("/sys/devices/system/node").glob("node*") if p.name[4:].isdigit()]
    assert memory["numa_nodes"] == (len(nodes) if nodes else "absent")
    thp = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if thp.exists():
        assert f"[{memory['transparent_hugepages']['enabled']}]" in read(thp)
    order = Path("/sys/module/page_reporting/parameters/page_reporting_order")
    assert memory["page_reporting"]["order"] == (int(read(order)) if order.exists()
                                                 else "absent")


def test_kernel_matches_proc_and_sys(record):
    kernel = record["kernel"]
    assert kernel["release"] == os.uname().release
    assert kernel["cmdline"] == read("/proc/cmdline")
    current = Path("/sys/devices/system/clocksource/clocksource0/current_clocksource")
    assert kernel["clocksource"] == (read(current) if current.exists() else "absent")
    for path in Path("/sys/devices/system/cpu/vulnerabilities").glob("*"):
        assert kernel["vulnerabilities"][path.name] == read(path)
    assert kernel["aslr"].startswith(read("/proc/sys/kernel/randomize_va_space"))
    assert kernel["preemption"]["model"] in ("PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT", "none")


def test_virtualization_is_labelled_with_evidence(record):
    virt = record["virtualization"]
    assert virt["kind"] in sysinfo.VIRT_KINDS
    assert virt["container"] in sysinfo.CONTAINER_KINDS
    assert virt["evidence"] and all(isinstance(e, str) and e for e in virt["evidence"])
    label = sysinfo.virtualization_label(record)
    kind, _, container = label.partition("+")
    assert kind in sysinfo.VIRT_KINDS + sysinfo.CONTAINER_KINDS
    assert not container or container in sysinfo.CONTAINER_KINDS


def test_storage_of_the_workdir(tmp_path):
    storage = sysinfo.collect_info(tmp_path)["storage"]
    st = os.statvfs(tmp_path)
    assert storage["path"] == os.path.realpath(tmp_path)
    assert storage["total_bytes"] == st.f_blocks * st.f_frsize
    free = st.f_bavail * st.f_frsize
    assert abs(storage["free_bytes"] - free) <= max(free * 0.05, 256 << 20)
    point = storage["mount_point"]
    assert point == "/" or (storage["path"] + "/").startswith(point.rstrip("/") + "/")
    assert storage["fstype"] and storage["fstype"] != "absent"
    if storage["device"] != "absent":
        queue = Path("/sys/class/block", storage["device"], "queue")
        assert storage["rotational"] == ("yes" if read(queue / "rotational") == "1" else "no")
        assert f"[{storage['scheduler']}]" in read(queue / "scheduler") \
            or storage["scheduler"] == read(queue / "scheduler")


def test_storage_on_tmpfs_has_no_device():
    storage = sysinfo.collect_info(Path("/dev/shm"))["storage"]
    if storage["fstype"] != "tmpfs":
        pytest.skip("/dev/shm is not a tmpfs here")
    assert storage["device"] == storage["rotational"] == storage["scheduler"] == "absent"


def test_compiler_without_and_with_a_toolchain(monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    compiler = sysinfo.collect_info()["compiler"]
    assert compiler["command"] == "cc"
    assert compiler["path"] == (shutil.which("cc") or "absent")
    assert compiler["version"] == "not probed" and not compiler["probed"]
    monkeypatch.setenv("CC", "definitely-not-a-compiler -O1")
    assert sysinfo.collect_info()["compiler"]["path"] == "absent"
    toolchain = Toolchain(("cc",), "cc (Debian 12.2.0-14) 12.2.0", ("-O3", "-march=native"))
    compiler = sysinfo.collect_info(toolchain=toolchain)["compiler"]
    assert compiler["version"] == "cc (Debian 12.2.0-14) 12.2.0"
    assert compiler["cflags"] == ["-O3", "-march=native"] and compiler["probed"]


def test_python_section(record):
    import platform
    import sys
    assert record["python"] == {"version": platform.python_version(),
                                "implementation": platform.python_implementation(),
                                "executable": sys.executable}


# -- fake trees ----------------------------------------------------------------------

class Fake:
    def __init__(self, base: Path):
        self.proc, self.sys, self.root = base / "proc", base / "sys", base / "root"
        for path in (self.proc, self.sys, self.root):
            path.mkdir(parents=True)

    def put(self, path: str, text: str = "") -> Path:
        """Write a file under the tree named by its first part: proc/, sys/ or root/."""
        top, _, rest = path.partition("/")
        target = {"proc": self.proc, "sys": self.sys, "root": self.root}[top] / rest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        return target

    def mountinfo(self, fstype: str = "ext4", source: str = "/dev/vda",
                  dev: str = "254:0") -> None:
        self.put("proc/self/mountinfo",
                 f"27 1 {dev} / / rw,relatime - {fstype} {source} rw\n"
                 "22 27 0:21 / /proc rw,relatime - proc proc rw\n")


@pytest.fixture()
def fake(tmp_path, monkeypatch) -> Fake:
    tree = Fake(tmp_path / "fake")
    monkeypatch.setattr(sysinfo, "PROC", tree.proc)
    monkeypatch.setattr(sysinfo, "SYS", tree.sys)
    monkeypatch.setattr(sysinfo, "ROOT", tree.root)
    for name in ("KUBERNETES_SERVICE_HOST", "container"):
        monkeypatch.delenv(name, raising=False)
    return tree


def test_an_empty_tree_reads_as_absent_and_never_raises(fake, tmp_path):
    record = sysinfo.collect_info(tmp_path)
    assert set(record) == SECTIONS
    assert not [name for name, section in record.items() if "error" in section]
    assert record["frequency"]["governor"] == "absent"
    assert record["frequency"]["boost"] == "absent"
    assert record["memory"]["transparent_hugepages"]["enabled"] == "absent"
    assert record["memory"]["page_reporting"]["order"] == "absent"
    assert record["kernel"]["clocksource"] == "absent"
    assert record["security"]["selinux"] == "absent"
    assert record["security"]["tomoyo"] == "unknown"
    assert record["storage"]["mount_point"] == "absent"
    assert record["cpu"]["caches"] == {}
    json.dumps(record)


def test_a_file_made_absent_reads_absent(fake):
    governor = fake.put("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n")
    fake.put("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n")
    frequency = sysinfo.collect_info()["frequency"]
    assert frequency["governor"] == "performance"
    assert frequency["boost"] == "off" and frequency["boost_source"] == "intel_pstate/no_turbo"
    governor.unlink()
    assert sysinfo.collect_info()["frequency"]["governor"] == "absent"
    governor.mkdir()  # a path that exists but cannot be read as a file
    assert sysinfo.collect_info()["frequency"]["governor"] == "unreadable"


def test_security_from_a_fake_tree(fake):
    fake.put("sys/fs/selinux/enforce", "0\n")
    fake.put("sys/module/apparmor/parameters/enabled", "Y\n")
    fake.put("sys/kernel/security/apparmor/profiles", "a (enforce)\nb (complain)\n")
    fake.put("sys/kernel/security/lsm", "lockdown,capability,landlock,yama,apparmor")
    fake.put("sys/kernel/security/lockdown", "none [integrity] confidentiality\n")
    fake.put("proc/1/comm", "systemd\n")
    fake.put("proc/812/comm", "auditd\n")
    security = sysinfo.collect_info()["security"]
    assert security == {
        "selinux": "permissive", "apparmor": "enabled", "apparmor_profiles": 2,
        "lsm": ["lockdown", "capability", "landlock", "yama", "apparmor"],
        "tomoyo": "no", "landlock": "yes", "lockdown": "integrity", "auditd_running": "yes",
    }


def test_storage_walks_from_a_partition_to_its_disk(fake, tmp_path):
    disk = fake.put("sys/devices/pci0000:00/block/sda/queue/rotational", "1\n").parent.parent
    fake.put("sys/devices/pci0000:00/block/sda/queue/scheduler", "none [bfq] mq-deadline\n")
    fake.put("sys/devices/pci0000:00/block/sda/sda2/partition", "2\n")
    (fake.sys / "dev/block").mkdir(parents=True)
    (fake.sys / "dev/block/8:2").symlink_to(disk / "sda2")
    fake.mountinfo("xfs", "/dev/sda2", "8:2")
    storage = sysinfo.collect_info(tmp_path)["storage"]
    assert storage["mount_point"] == "/" and storage["fstype"] == "xfs"
    assert storage["device"] == "sda"
    assert storage["rotational"] == "yes" and storage["scheduler"] == "bfq"


def virt(fake: Fake) -> dict:
    return sysinfo.collect_info()["virtualization"]


def test_docker_marker_with_an_overlay_root(fake):
    fake.put("root/.dockerenv")
    fake.mountinfo("overlay", "overlay", "0:52")
    fake.put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sse2\n")
    result = virt(fake)
    assert result["container"] == "docker" and result["kind"] == "none"
    assert "/.dockerenv present" in result["evidence"]
    assert sysinfo.virtualization_label({"virtualization": result}) == "docker"


def test_docker_marker_left_over_in_a_vm_image_is_ignored(fake):
    fake.put("root/.dockerenv")
    fake.mountinfo("ext4", "/dev/vda", "254:0")
    fake.put("proc/1/cgroup", "0::/\n")
    result = virt(fake)
    assert result["container"] == "none"
    assert any("ignored" in e for e in result["evidence"])


def test_wsl(fake):
    fake.put("proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n")
    fake.put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu hypervisor\n")
    result = virt(fake)
    assert result["kind"] == "wsl"
    assert any("microsoft" in e for e in result["evidence"])


def test_vmware_from_dmi(fake):
    fake.put("sys/class/dmi/id/sys_vendor", "VMware, Inc.\n")
    fake.put("sys/class/dmi/id/product_name", "VMware Virtual Platform\n")
    result = virt(fake)
    assert result["kind"] == "vmware" and any("VMware" in e for e in result["evidence"])


@pytest.mark.parametrize(("clocksources", "expected"), [("tsc kvm-clock", "kvm"),
                                                         ("tsc hpet acpi_pm", "qemu")])
def test_qemu_dmi_is_kvm_when_kvm_clock_is_offered(fake, clocksources, expected):
    fake.put("sys/class/dmi/id/sys_vendor", "QEMU\n")
    fake.put("sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n")
    fake.put("sys/devices/system/clocksource/clocksource0/available_clocksource",
             clocksources + "\n")
    fake.put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu hypervisor\n")
    result = virt(fake)
    assert result["kind"] == expected and any("QEMU" in e for e in result["evidence"])


def test_kvm_with_docker_label(fake):
    fake.put("sys/class/dmi/id/product_name", "KVM\n")
    fake.put("root/.dockerenv")
    fake.mountinfo("overlay", "overlay", "0:52")
    record = sysinfo.collect_info()
    assert sysinfo.virtualization_label(record) == "kvm+docker"


def test_firecracker_without_dmi(fake):
    fake.put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu hypervisor\n")
    fake.put("proc/cmdline", "console=ttyS0 reboot=k virtio_mmio.device=4K@0xd0000000:5\n")
    result = virt(fake)
    assert result["kind"] == "firecracker"
    assert "/sys/class/dmi/id absent" in result["evidence"]


def test_bare_metal(fake):
    fake.put("sys/class/dmi/id/sys_vendor", "Dell Inc.\n")
    fake.put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sse2 avx2\n")
    result = virt(fake)
    assert (result["kind"], result["container"]) == ("none", "none")
    assert sysinfo.virtualization_label({"virtualization": result}) == "none"


def test_podman_lxc_and_kubernetes(fake, monkeypatch):
    fake.put("root/run/.containerenv", 'engine="podman-4.9.3"\n')
    assert virt(fake)["container"] == "podman"
    (fake.root / "run/.containerenv").unlink()
    fake.put("proc/1/environ", "PATH=/bin\0container=lxc\0")
    assert virt(fake)["container"] == "lxc"
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    result = virt(fake)
    assert result["container"] == "kubernetes"
    assert "environment: KUBERNETES_SERVICE_HOST set" in result["evidence"]


def test_xen(fake):
    fake.put("sys/hypervisor/type", "xen\n")
    assert virt(fake)["kind"] == "xen"


# -- the command -----------------------------------------------------------------------

def test_cli_json(tmp_path):
    result = CliRunner().invoke(info_command, ["--json", "--workdir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == SECTIONS
    assert data["storage"]["path"] == os.path.realpath(tmp_path)


def test_cli_console_view():
    result = CliRunner().invoke(info_command, [])
    assert result.exit_code == 0, result.output
    for title in ("CPU", "Frequency", "Memory", "Kernel", "Virtualization", "Security",
                  "Storage", "Compiler", "Python"):
        assert f"\n{title}\n" in f"\n{result.stdout}"
    assert not [line for line in result.stdout.splitlines() if line != line.rstrip()]


def test_cli_bad_workdir(tmp_path):
    missing = tmp_path / "missing"
    result = CliRunner().invoke(info_command, ["--workdir", str(missing)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"osmark: error: --workdir {missing}: not a directory"
