import pytest

from osmark.catalog import BENCHMARKS, BY_ID, UnknownBenchmark, resolve, suite_members
from osmark.catalog.unixbench import INDEX_IDS
from osmark.kernels.build import KERNELS, kernel_source_dir


def test_index_has_the_twelve_unixbench_tests():
    assert INDEX_IDS == (
        "ub.dhry2reg", "ub.whetstone-double", "ub.execl", "ub.fstime", "ub.fsbuffer",
        "ub.fsdisk", "ub.pipe", "ub.context1", "ub.spawn", "ub.syscall", "ub.shell1",
        "ub.shell8",
    )
    assert all(BY_ID[i].baseline for i in INDEX_IDS)


def test_ids_are_unique_and_kernels_exist():
    assert len(BY_ID) == len(BENCHMARKS)
    for spec in BENCHMARKS:
        for kernel in spec.kernels:
            assert kernel in KERNELS, spec.id
            for source in KERNELS[kernel]:
                assert (kernel_source_dir() / source).is_file(), source


def test_short_names_resolve():
    assert [b.id for b in resolve(["syscall", "pipe"])] == ["ub.pipe", "ub.syscall"]
    assert [b.id for b in resolve(["os.syscall"])] == ["os.syscall"]
    assert [b.id for b in resolve(["fork-exec"])] == ["os.fork-exec"]
    assert len(resolve(["index"])) == 12
    assert resolve(["costs"]) == suite_members("costs")


def test_unknown_name_is_a_clear_error():
    with pytest.raises(UnknownBenchmark, match="osmark list"):
        resolve(["nosuchtest"])
