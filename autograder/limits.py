"""Every limit the grader sets on a submission, in one place; the CLI takes its defaults here.

Trusts nothing and imports only the standard library, so both sides of the sandbox (the
grader, and the runner inside bubblewrap) read the same figures.

``Limits`` holds what an instructor may change per run (``grade --cell-timeout`` and the
like); its fields are part of a submission's fingerprint, so changing one regrades
everything. The constants below are fixed caps: not options, and not in the fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Limits:
    cell_seconds: float = 30.0  # wall time per cell and per case evaluation
    submission_seconds: float = 180.0  # wall time for one whole submission
    memory_bytes: int = 3 * 2**30  # RLIMIT_DATA (and RLIMIT_AS = this + AS_HEADROOM)
    cpu_seconds: int = 180  # RLIMIT_CPU for the child
    processes: int = 64  # RLIMIT_NPROC for the child (see autograder.sandbox: fork bombs)
    file_bytes: int = 16 * 2**20  # RLIMIT_FSIZE
    output_bytes: int = 2**20  # most bytes of results accepted back from one submission
    scratch_bytes: int = 64 * 2**20  # size of the sandbox's tmpfs /tmp (and of /dev/shm)

    @classmethod
    def from_json(cls, data: dict[str, float]) -> Limits:
        """What ``dataclasses.asdict`` made of a Limits, back (the runner gets it this way)."""
        return cls(**{f.name: data[f.name] for f in fields(cls)})




@dataclass(frozen=True)
class Option:
    """A limit ``python -m autograder grade`` takes on its command line."""

    flag: str
    field: str  # of Limits
    metavar: str
    help: str
    scale: int = 1  # Limits' unit per command-line unit (GB -> bytes)

    @property
    def default(self) -> float:
        return getattr(Limits(), self.field) / self.scale

    def to_limit(self, value: float) -> float | int:
        return int(value * self.scale) if self.scale != 1 else value


GRADE_OPTIONS = (
    Option("--cell-timeout", "cell_seconds", "S", "seconds one cell may run"),
    Option("--timeout", "submission_seconds", "S", "seconds one submission may run in all"),
    Option("--memory-gb", "memory_bytes", "GB", "memory one submission may use", 2**30),
)
DEFAULT_JOBS = 2  # parallel workers (grade --jobs)
ENGINES = ("dask", "threads")  # grade --engine: Dask distributed, or a pool in the process

# -- fixed caps, outside the sandbox
# A notebook is read whole into the grader (outside the sandbox), so its size is capped. Ours
# are ~0.2 MiB with outputs; only output piled up in cells (a print loop, hundreds of plots)
# comes near this, and clearing outputs fixes it.
NOTEBOOK_BYTES = 64 * 2**20
START_SECONDS = 300.0  # a worker's start: bwrap + imports; generous for a busy machine
GRACE_SECONDS = 5.0  # beyond submission_seconds before the watchdog gives up on a worker
STDERR_TAIL = 8192  # bytes of a worker's stderr kept to explain a failed start

# -- fixed caps, inside the sandbox (the child and the zygote)
AS_HEADROOM = 2 * 2**30  # RLIMIT_AS = memory_bytes + this (libraries, thread stacks, arenas)
OPEN_FILES = 256  # RLIMIT_NOFILE
VALUE_BYTES = 64 * 1024  # one case's JSON outcome; larger values are not graded
LINE_BYTES = VALUE_BYTES + 16 * 1024  # one result line from the child
ERROR_CHARS = 2000  # an error message sent back
POLL_SECONDS = 0.1  # how often the zygote counts the sandbox's processes and memory
