"""Which export runs: 8-bit only where the CPU sums 8-bit products exactly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from reader_fixtures import untrained_dir

from engine.errors import BadInputError
from mtrain.cli import main
from vision.models.onnx_models import load_specs
from vision.models.precision import (
    PRECISION_ENV,
    SEVEN_BIT,
    check_setting,
    chosen_precision,
    cpu_flags,
    int8_is_exact,
    model_file,
)

X86_AVX2 = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC
flags\t\t: fpu vme sse sse2 ssse3 fma avx avx2 bmi2
bugs\t\t: sysret_ss_attrs

processor\t: 1
flags\t\t: fpu vme sse sse2 ssse3 fma avx avx2 bmi2
"""
X86_VNNI = X86_AVX2.replace("avx2 bmi2", "avx2 bmi2 avx512f avx512_vnni", 1)
ARM_DOTPROD = """processor\t: 0
BogoMIPS\t: 243.75
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp asimddp
CPU implementer\t: 0x41
"""


class TestCpuFlags:
    def test_x86_flags_line(self) -> None:
        flags = cpu_flags(X86_AVX2)
        assert flags is not None and "avx2" in flags and "sysret_ss_attrs" not in flags

    def test_arm_features_line(self) -> None:
        flags = cpu_flags(ARM_DOTPROD)
        assert flags is not None and "asimddp" in flags and "0x41" not in flags

    def test_no_flags_line(self) -> None:
        assert cpu_flags("processor\t: 0\nmodel name\t: something\n") is None
        assert cpu_flags("") is None

    @pytest.mark.parametrize(("text", "exact"), [
        (X86_AVX2, False), (X86_VNNI, True), (ARM_DOTPROD, True),
        (ARM_DOTPROD.replace(" asimddp", ""), False), ("", None),
    ])
    def test_exact_int8(self, text: str, exact: bool | None) -> None:
        assert int8_is_exact(cpu_flags(text)) is exact


class TestChoice:
    def test_auto_is_the_same_on_every_cpu(self) -> None:
        """The float detectors and the 7-bit classifiers: exact on every CPU."""
        assert chosen_precision("") == SEVEN_BIT
        assert chosen_precision("auto") == SEVEN_BIT

    def test_environment_overrides_the_choice(self) -> None:
        assert chosen_precision(" INT8 ") == "int8"
        assert chosen_precision("float") == "float"

    def test_environment_variable_is_read(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv(PRECISION_ENV, "float")
        assert chosen_precision() == "float"
        monkeypatch.setenv(PRECISION_ENV, "int8")
        assert chosen_precision() == "int8"
        monkeypatch.delenv(PRECISION_ENV)
        assert chosen_precision() == SEVEN_BIT

    def test_bad_value_is_a_clear_error(self) -> None:
        with pytest.raises(BadInputError, match="int8") as err:
            chosen_precision("fp16")
        assert err.value.source == PRECISION_ENV


@pytest.fixture(scope="module")
def two_exports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder whose index names ``*.int8.onnx`` files, with a float
    sibling for the tile model but none for the pip model."""
    untrained = untrained_dir(tmp_path_factory)
    folder = tmp_path_factory.mktemp("two_exports")
    index = json.loads((untrained / "models.json").read_text())
    for key, entry in index.items():
        src = untrained / entry["file"]
        stem = src.name.removesuffix(".onnx")
        shutil.copy(src, folder / f"{stem}.int8.onnx")
        if key != "pips":
            shutil.copy(src, folder / f"{stem}.onnx")
        entry["file"] = f"{stem}.int8.onnx"
    (folder / "models.json").write_text(json.dumps(index))
    return folder


class TestLoadSpecs:
    def test_float_takes_the_float_sibling(self, two_exports: Path) -> None:
        specs = load_specs(two_exports, "float")
        assert specs["tiles"].file.name.endswith(".onnx")
        assert not specs["tiles"].file.name.endswith(".int8.onnx")
        assert specs["tiles"].file.is_file()

    def test_float_keeps_the_int8_file_without_a_sibling(self, two_exports: Path) -> None:
        assert load_specs(two_exports, "float")["pips"].file.name.endswith(".int8.onnx")
        assert model_file(two_exports / "none.int8.onnx", "float").name == "none.int8.onnx"
        assert model_file(two_exports / "plain.onnx", "float").name == "plain.onnx"

    def test_seven_bit_weights_stay_8_bit_where_sums_can_saturate(
            self, two_exports: Path, tmp_path: Path) -> None:
        """On an AVX2 CPU without VNNI only an 8-bit export with 7-bit weights runs in
        8 bits (its sums cannot saturate); the others run their float sibling, and
        ``float`` asked for outright means float for all."""
        folder = tmp_path / "seven"
        shutil.copytree(two_exports, folder)
        index = json.loads((folder / "models.json").read_text())
        index["halves"] = {**index["pips"], "weight_bits": 7}  # the pip export, listed twice
        (folder / "models.json").write_text(json.dumps(index))
        shutil.copy(folder / "pips.int8.onnx", folder / "pips.onnx")  # float beside it
        specs = load_specs(folder, SEVEN_BIT)
        assert specs["halves"].weight_bits == 7 and specs["tiles"].weight_bits == 8
        assert specs["halves"].file.name == "pips.int8.onnx"  # 7-bit weights: 8-bit
        assert specs["pips"].file.name == "pips.onnx"  # the same file with 8-bit weights: float
        assert specs["tiles"].file.name == "tiles.onnx"
        assert all(not s.file.name.endswith(".int8.onnx")
                   for s in load_specs(folder, "float").values())
        assert all(s.file.name.endswith(".int8.onnx")
                   for s in load_specs(folder, "int8").values())
        assert model_file(folder / "pips.int8.onnx", SEVEN_BIT, 8).name == "pips.onnx"
        assert model_file(folder / "pips.int8.onnx", SEVEN_BIT, 7).name == "pips.int8.onnx"

    def test_auto_and_bad_values(self, two_exports: Path) -> None:
        assert load_specs(two_exports, "auto")["tiles"].file.is_file()
        with pytest.raises(BadInputError):
            load_specs(two_exports, "fp16")

    def test_int8_keeps_the_listed_files(self, two_exports: Path) -> None:
        specs = load_specs(two_exports, "int8")
        assert all(s.file.name.endswith(".int8.onnx") for s in specs.values())

    def test_default_follows_the_environment(self, two_exports: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv(PRECISION_ENV, "float")
        assert not load_specs(two_exports)["tiles"].file.name.endswith(".int8.onnx")
        monkeypatch.setenv(PRECISION_ENV, "int8")
        assert load_specs(two_exports)["tiles"].file.name.endswith(".int8.onnx")

    def test_cli_reports_a_bad_setting_in_one_line(
            self, two_exports: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> None:
        photo = tmp_path / "photo.png"
        cv2.imwrite(str(photo), np.full((64, 64, 3), 200, np.uint8))
        monkeypatch.setenv(PRECISION_ENV, "half")
        code = main(["read", str(photo), "--models", str(two_exports)])
        err = capsys.readouterr().err
        assert code == 2 and PRECISION_ENV in err and err.count("\n") == 1
        assert "Traceback" not in err


class TestSetting:
    @pytest.mark.parametrize("value", ["", "auto", "int8", "Float", "int8-7bit"])
    def test_good_values_pass(self, value: str) -> None:
        check_setting(value)

    def test_any_command_refuses_a_bad_value_before_it_runs(
            self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        monkeypatch.setenv(PRECISION_ENV, "int4")
        code = main(["camera-plan", "--table-cm", "100"])
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        assert err.startswith(f"mtrain: {PRECISION_ENV}: ") and "'int4'" in err
        monkeypatch.setenv(PRECISION_ENV, "float")
        assert main(["camera-plan", "--table-cm", "100"]) == 0
