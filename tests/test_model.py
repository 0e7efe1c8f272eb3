import json
from pathlib import Path

import pytest

from osmark import model
from osmark.model import (
    BenchResult,
    Description,
    Host,
    Identity,
    ResultFile,
    RunInfo,
    Score,
    Tool,
)

GOLDEN = Path(__file__).parent / "golden"


def make_result() -> ResultFile:
    return ResultFile(
        schema_version=model.SCHEMA_VERSION,
        tool=Tool(name="osmark", version="0.1.0"),
        run=RunInfo(id="r1", started="2026-11-30T00:00:00+00:00", ended=None, complete=True,
                    suite="index", argv=["osmark", "run"]),
        host=Host(
            identity=Identity(cpu_model="cpu", cpus=2, memory_gib=1.0, kernel="6.1",
                              arch="x86_64", os="Linux", virtualization="kvm", compiler="cc",
                              compiler_version="gcc 12", cflags=["-O3"],
                              osmark_version="0.1.0"),
            description=Description(hostname="h", cpus_usable=2, memory_bytes=2**30,
                                    python="3.11", tags={"kernel": "patched"}),
            info={"cpu": {"model": "cpu"}},
        ),
        results=[BenchResult(id="ub.pipe", title="Pipe Throughput", category="os", version=1,
                             copies=1, status="ok", reason=None, unit="lps",
                             higher_is_better=True, median=10.0, samples=[9.0, 10.0, 11.0],
                             n=3, baseline=12440.0, index=0.008)],
        scores=[Score(copies=1, index=0.008, partial=True, tests=1)],
    )


def test_round_trip(tmp_path):
    path = model.save(make_result(), tmp_path / "sub" / "r.json")
    loaded = model.load(path)
    assert loaded == make_result()
    assert not list(path.parent.glob(".*tmp"))  # no temporary file left behind


def _write(tmp_path, data) -> str:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def _valid_dict():
    return json.loads(model.dumps(make_result()))


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: "", "the file is empty"),
        (lambda d: "{not json", "not valid JSON"),
        (lambda d: json.dumps(d)[:200], "not valid JSON"),
        (lambda d: [1, 2], "expected a JSON object"),
        (lambda d: {**d, "schema_version": 99}, "newer than this osmark understands"),
        (lambda d: {**d, "schema_version": "1"}, "schema_version: missing or not an integer"),
        (lambda d: {k: v for k, v in d.items() if k != "host"}, "missing required field `host`"),
        (lambda d: {**d, "surprise": 1}, "unknown field `surprise`"),
    ],
)
def test_bad_files_give_one_clear_line(tmp_path, mutate, expected):
    path = _write(tmp_path, mutate(_valid_dict()))
    with pytest.raises(model.ResultFileError) as info:
        model.load(path)
    message = str(info.value)
    assert message.startswith(path + ": ")
    assert expected in message
    assert "\n" not in message


def test_error_names_the_field_path(tmp_path):
    data = _valid_dict()
    data["results"][0]["samples"] = ["a"]
    with pytest.raises(model.ResultFileError) as info:
        model.load(_write(tmp_path, data))
    assert "results[0].samples[0]: expected `float`" in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(model.ResultFileError, match="no such file"):
        model.load(tmp_path / "nope.json")


def test_schema1_golden_file_upgrades():
    result = model.load(GOLDEN / "schema1-index-2copies.json")
    assert result.schema_version == model.SCHEMA_VERSION
    identity = result.host.identity
    assert identity.cpu_model == "AMD EPYC"
    assert identity.virtualization == "unknown"
    assert identity.memory_gib == 23.5
    assert identity.osmark_version == "0.1.0"
    assert result.host.description.hostname
    assert all(r.quality == "unknown" for r in result.results)
    assert len(result.results) == 24
    assert [s.copies for s in result.scores] == [1, 2]


def test_current_schema_round_trips_through_json(tmp_path):
    result = model.load(GOLDEN / "schema1-index-2copies.json")
    again = model.load(model.save(result, tmp_path / "r.json"))
    assert again == result


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("schema*.json")))
def test_every_golden_file_loads_at_the_current_schema(name):
    """One real result file per schema version: each loads, upgraded, and round-trips."""
    raw = json.loads((GOLDEN / name).read_text())
    assert raw["schema_version"] == int(name[len("schema")])
    result = model.load(GOLDEN / name)
    assert result.schema_version == model.SCHEMA_VERSION
    assert result.run.source is None  # measured by osmark, not imported
    assert model.parse(model.dumps(result), name) == result
    assert all(r.samples for r in result.results if r.status == "ok")


def test_schema2_upgrade_adds_only_the_source():
    old = model.load(GOLDEN / "schema2-index-2copies.json")
    new = model.load(GOLDEN / "schema3-index-2copies.json")
    assert old == new


def test_schema4_keeps_details_and_the_reference():
    result = model.load(GOLDEN / "schema4-workloads-reference.json")
    by_id = {r.id: r for r in result.results}
    write = by_id["io.seq-write"]
    assert write.reference is not None and write.reference.tool.startswith("fio")
    assert write.reference.value > 0 and write.reference.unit == write.unit
    assert write.details["direct"] == 1
    old = model.load(GOLDEN / "schema3-index-2copies.json")  # upgraded: none of either
    assert all(r.details == {} and r.reference is None for r in old.results)
