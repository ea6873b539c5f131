"""Which export of a model to run: the same on every CPU, the float detectors and the
8-bit half classifiers whose weights have 7 bits.

``models.json`` names each model's 8-bit export (``*.int8.onnx``, made by
``training.quantize``); its float export lies beside it (``*.onnx``). ONNX
Runtime's 8-bit convolutions multiply uint8 activations by int8 weights.
With VNNI on x86 (``avx512_vnni``, ``avx_vnni``, AMX) or the dot-product
instructions on Arm (``asimddp``) the products are summed in 32 bits, exactly.
On an x86 CPU with AVX2 but no VNNI, pairs of products are summed in 16 bits,
which can saturate (ONNX Runtime's quantization guide advises 7-bit weights,
``reduce_range``, or uint8 weights for such CPUs), so the 8-bit detectors read
differently there: on an AVX2-only AMD EPYC, of 320 rendered 1920x1080 tables,
275 read whole against 289 in float.

An 8-bit export quantized with 7-bit weights (``reduce_range``;
``models.json`` ``"weight_bits": 7``) cannot saturate those 16-bit sums
(2 x 255 x 64 < 32768), so it reads the same on every CPU. The half
classifiers are quantized so: on the validation crops of 0-12 they name as many
right as in float (top-1, ``crops`` / ``crops-table``: 99.48 / 98.85 % against
99.38 / 98.54 %), and the quick one takes 22 ms for a frame's 68 crops against
27 ms in float. The tile detector and the pip model keep 8-bit weights.

``auto`` chooses ``SEVEN_BIT`` on every CPU: the 8-bit export where its weights have
7 bits, the float one elsewhere. So every CPU gives the same answer, and it is the
more accurate one even where the 8-bit detectors sum exactly
(``benchmarks/results/precision.json``, an AVX-512 VNNI CPU: photoreal tiles read
right 79.6 / 65.0 % with and without the mat against 78.3 / 65.0 % with the 8-bit
detectors, 30 / 30 phantoms against 37 / 32; real low-angle halves found 92 against
88 %; the eval set's tile-exact 99.56 % against 99.41 %). The 8-bit detectors are
faster with VNNI; ``MTRAIN_PRECISION`` asks for them (``int8``), or for every model
in float (``float``).
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import BadInputError

#: Environment variable that overrides the choice: ``int8``, ``float``, ``int8-7bit``
#: (``SEVEN_BIT``) or ``auto``.
PRECISION_ENV = "MTRAIN_PRECISION"
#: What ``auto`` chooses, on every CPU: the 8-bit export only of the models whose
#: weights have 7 bits (``models.json`` ``weight_bits``), the float one elsewhere.
SEVEN_BIT = "int8-7bit"
PRECISIONS = ("auto", "int8", "float", SEVEN_BIT)
#: Ending of an 8-bit export's file name; the float export drops the ``.int8``.
INT8_SUFFIX = ".int8.onnx"
#: CPU flags (``/proc/cpuinfo``) under which 8-bit products are summed exactly.
EXACT_INT8_FLAGS = frozenset({
    "avx512_vnni", "avx512vnni", "avx_vnni", "amx_int8",  # x86
    "asimddp",  # Arm: SDOT/UDOT
})
CPUINFO = Path("/proc/cpuinfo")


def cpu_flags(cpuinfo: str | None = None) -> frozenset[str] | None:
    """The instruction-set flags of the first CPU in ``cpuinfo`` (the text of
    ``/proc/cpuinfo``; read from there when None): x86's ``flags`` line or
    Arm's ``Features`` line. None where there is no such file or line."""
    if cpuinfo is None:
        try:
            cpuinfo = CPUINFO.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in ("flags", "features"):
            return frozenset(value.split())
    return None


def int8_is_exact(flags: frozenset[str] | None) -> bool | None:
    """Whether a CPU with these ``flags`` is known to sum 8-bit products exactly
    (one of ``EXACT_INT8_FLAGS``); None where the flags are unknown. An Arm CPU
    without dot products (a Cortex-A72, say) counts as not known: float runs there."""
    if flags is None:
        return None
    return not flags.isdisjoint(EXACT_INT8_FLAGS)


def check_setting(env: str | None = None) -> None:
    """Raise ``BadInputError`` when ``MTRAIN_PRECISION`` (``env``) is set to
    something other than ``PRECISIONS``: the command line checks it at start,
    before a server starts or a model loads."""
    chosen_precision(env)


def chosen_precision(env: str | None = None) -> str:
    """``"int8"``, ``"float"`` or ``SEVEN_BIT``: what ``MTRAIN_PRECISION`` (``env``) asks
    for, else (``auto``) ``SEVEN_BIT``, on every CPU. Raises ``BadInputError`` for a
    value other than ``PRECISIONS``."""
    if env is None:
        env = os.environ.get(PRECISION_ENV, "")
    wanted = env.strip().lower() or "auto"
    if wanted not in PRECISIONS:
        raise BadInputError(PRECISION_ENV, f"is {env!r}; use one of {', '.join(PRECISIONS)}")
    return SEVEN_BIT if wanted == "auto" else wanted


def model_file(path: Path, precision: str, weight_bits: int = 8) -> Path:
    """The export of the model at ``path`` (its 8-bit weights ``weight_bits`` wide) to
    run at ``precision``: the float sibling of an 8-bit file when ``"float"`` is asked
    for, or ``SEVEN_BIT`` and the weights have 8 bits, and that sibling exists; else
    ``path`` itself."""
    wants_float = precision == "float" or (precision == SEVEN_BIT and weight_bits > 7)
    if wants_float and path.name.endswith(INT8_SUFFIX):
        sibling = path.with_name(path.name[: -len(INT8_SUFFIX)] + ".onnx")
        if sibling.is_file():
            return sibling
    return path
