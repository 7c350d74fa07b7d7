#!/usr/bin/env bash
# The GPU check, as one script: on a machine with an NVIDIA GPU, replay every notebook with
# their %%gpu_only cells at the lecture's sizes, then time bf16/fp16/tf32/fp32 matmuls with our
# timer next to torch.utils.benchmark and triton's do_bench. About 5-8 minutes on one H100/H200.
#
#   bash benchmarks/gpu_replay.sh [OUT]        default OUT: benchmarks/results/<gpu>-<date>
#   bash benchmarks/gpu_replay.sh --dry-run OUT   on a CPU: one notebook, tiny matmuls; checks
#                                                 the script itself (the test suite runs this)
#
# Commit OUT afterwards: replay.json, matmul_timers.{json,md} and the executed notebooks.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
[ -x "$python" ] || python=python3
export PATH="$(dirname "$python"):$PATH"

dry_run=0
if [ "${1:-}" = "--dry-run" ]; then
    dry_run=1
    shift
fi

if [ "$dry_run" = 0 ] && ! "$python" -c "import torch, sys; sys.exit(not torch.cuda.is_available())"; then
    echo "gpu_replay: no CUDA GPU here; use --dry-run to check the script on a CPU" >&2
    exit 2
fi

gpu=$("$python" -c "from lecture_utils.device import device_name; print(device_name())" \
      | tr ' /' '__')
out=${1:-benchmarks/results/${gpu}-$(date +%Y-%m-%d)}
mkdir -p "$out"
echo "gpu_replay: writing to $out"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true

# A notebook that fails still leaves the timers to run; the exit status reports it.
status=0
if [ "$dry_run" = 1 ]; then
    "$python" benchmarks/replay_notebooks.py --out "$out" 00_napkin_math || status=$?
    "$python" benchmarks/matmul_timers.py --dry-run --out "$out" || status=$?
else
    "$python" benchmarks/replay_notebooks.py --out "$out" || status=$?  # every notebook
    "$python" benchmarks/matmul_timers.py --out "$out" || status=$?
fi
echo "gpu_replay: finished with status $status; results in $out"
exit "$status"
