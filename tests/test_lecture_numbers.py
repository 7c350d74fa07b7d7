"""The curriculum's lecture numbers appear in the instructor notebooks' outputs.

nbval replays those notebooks and compares these outputs, so together this proves the
numbers are recomputed, not merely typed in. The notebooks also `assert` each of them.
"""

import nbformat
import pytest

from autograder.course import instructor_notebook

# (as printed, as written in the notebook's `assert`)
LECTURE_NUMBERS = {
    "00_napkin_math": [
        ("6.3e24", "6.3e24"),      # 70B params × 15T tokens
        ("4.377e22", "4.377"),     # FLOPs per day on 1024 H100s at MFU 0.5
        ("143.9", "143.9"),        # days for that run
        ("40e9", "40e9"),          # largest model on 8 × 80 GB at 16 bytes per parameter
        ("9.575e21", "9.575"),     # 8 H100s for two weeks at peak (not one week)
    ],
    "01_tensors_and_memory": [
        ("128", "128"),                        # a 4×8 fp32 tensor
        ("2,415,919,104", "2_415_919_104"),    # one GPT-3 FFN matrix in fp32
        ("2304", "2304"),                      # ... in MiB
        ("65504", "65504"),                    # fp16's largest value
    ],
    "02_strides_and_views": [
        ("offset of x[1, 2]: .storage_offset()", "== 6"),  # x[1, 2] of a 4×4 tensor
    ],
    "03_data_types": [
        ("fp16(1e-8) = 0.0", "bits_of(1e-8, torch.float16) == 0x0000"),   # flushed to +0.0
        ("bf16(1e-8) = 1.00117", "bits_of(1e-8, torch.bfloat16) != 0x0000"),  # bf16 keeps it
        ("fp16 max                           65504", "max == 65504"),
        ("448.0", "max == 448"),                           # E4M3's largest number
        ("fp8 e5m2 max                       57344", "max == 57344"),
    ],
    "04_matmul_flops_and_mfu": [
        ("8,796,093,022,208 FLOPs", "2 * B * D * K"),      # 2mkn, counted = formula
    ],
    "05_autograd_and_backward": [
        ("forward 2·B·P = 167,772,160", "== 2 * B * P"),
        ("backward 4·B·P = 335,544,320", "== 4 * B * P"),
        ("total 6·B·P = 503,316,480", "== 6 * B * P"),
    ],
    "06_parameters_and_modules": [
        ("8,256 parameters = 2·64² + 64", "== 8256"),  # Cruncher(64, 2): L·d² + d
    ],
    "07_optimizers_and_memory": [
        ("adamw           16", 'bytes_per_parameter("adamw") == 16'),  # fp32 AdamW: 16 B
        ("ZeRO stage 0:   5.0 B parameters", "answer[0] == 5e9"),      # 8 × 80 GB / 16 B
        ("ZeRO stage 3:  40.0 B parameters", "math.isclose(answer[3], 40e9)"),
    ],
    # 08 data loading: entries go here
    "08_data_loading": [
        ("uint16: 2 bytes per token", "uint16.itemsize == 2"),  # ids below 65,536
        ("15T tokens on disk: 30 TB as uint16", "corpus * uint16.itemsize == 30e12"),
    ],
    # 09 training loop and checkpoints: entries go here
    "09_training_loop_and_checkpoints": [
        # an fp32 AdamW checkpoint: weights + two moments, 12 bytes per parameter (+ RNG)
        ("bytes per parameter: 12.18", "round(measured / P) == 12"),
        # k steps + save + load into fresh objects + N - k steps == N straight steps
        ("parameters bitwise equal (torch.equal, all 5 tensors): True",
         "same_params and same_losses"),
        # one step of Cruncher(4, 2) at batch 2 with AdaGrad: 36 + 36 + 36 + 16 floats, 6·B·P
        ("total (bytes)                                496",
         'training_step_budget(4, 2, 2, "adagrad")["total"] == 496'),
        ("forward + backward (FLOPs)                   432",
         'training_step_budget(4, 2, 2, "adagrad")["flops"] == 432'),
    ],
    # 10 mixed precision: entries go here
    "10_mixed_precision": [
        ("torch.float16            5.960e-08", "FP16_SMALLEST_SUBNORMAL == 2.0**-24"),  # 2^-24
        ("6.104e-05        65504", "FP16_MAX == 65504"),                    # fp16's largest
        ("bf16 mixed (fp32 master)       16 bytes per parameter",           # 2+2+4+4+4
         'RECIPE_BYTES["bf16 mixed (fp32 master)"] == 16'),
        ("bf16 pure                       8 bytes per parameter",           # 2+2+2+2
         'RECIPE_BYTES["bf16 pure"] == 8'),
    ],
}
CASES = [(a, printed, asserted) for a, pairs in LECTURE_NUMBERS.items()
         for printed, asserted in pairs]


def _outputs_and_sources(assignment: str) -> tuple[str, str]:
    notebook = nbformat.read(instructor_notebook(assignment), as_version=4)
    outputs, sources = [], []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        sources.append(cell.source)
        for output in cell.outputs:
            if output.output_type == "stream":
                outputs.append(output.text)
            elif "data" in output:
                outputs.append(str(output.data.get("text/plain", "")))
    return "\n".join(outputs), "\n".join(sources)


@pytest.mark.parametrize(("assignment", "printed", "asserted"), CASES)
def test_lecture_number_is_printed_and_asserted(assignment, printed, asserted):
    outputs, sources = _outputs_and_sources(assignment)
    assert printed in outputs, f"{assignment} no longer prints the lecture's {printed}"
    assert_lines = [ln for ln in sources.splitlines() if ln.strip().startswith("assert ")]
    assert any(asserted in ln for ln in assert_lines), f"{assignment} no longer asserts {printed}"
