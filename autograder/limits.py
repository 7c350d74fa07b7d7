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
    # What the coordinator reads of a submitted file, outside the sandbox. Ours are ~0.1-0.5
    # MiB with outputs, 30-60 cells, ~2,000 JSON values, nested 8 deep; each cap is far above
    # what an honest notebook reaches and is checked before the part it protects is built.
    notebook_bytes: int = 32 * 2**20  # the file, checked before it is read
    notebook_cells: int = 2000  # cells (20,000 empty ones held a batch for 30 s)
    json_values: int = 1_000_000  # objects, arrays and items, counted before parsing
    json_depth: int = 64  # nesting of objects and arrays
    source_chars: int = 2 * 2**20  # one cell's source, and any id or metadata text

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
        whole = isinstance(getattr(Limits(), self.field), int)
        return int(value * self.scale) if self.scale != 1 or whole else value


GRADE_OPTIONS = (
    Option("--cell-timeout", "cell_seconds", "S", "seconds one cell may run"),
    Option("--timeout", "submission_seconds", "S", "seconds one submission may run in all"),
    Option("--memory-gb", "memory_bytes", "GB", "memory one submission may use", 2**30),
    Option("--max-notebook-mb", "notebook_bytes", "MB",
           "largest submitted file read (larger: invalid)", 2**20),
    Option("--max-cells", "notebook_cells", "N", "most cells a submission may have"),
    Option("--max-json-values", "json_values", "N",
           "most JSON objects, arrays and items in a submitted file"),
    Option("--max-depth", "json_depth", "N", "deepest nesting in a submitted file"),
    Option("--max-source-chars", "source_chars", "N",
           "longest cell source, id or metadata text"),
)
DEFAULT_JOBS = 2  # parallel workers (grade --jobs)
ENGINES = ("dask", "threads")  # grade --engine: Dask distributed, or a pool in the process

# -- fixed caps, outside the sandbox
SIDE_FILE_BYTES = 4096  # timestamp.txt and the like, read only if a small regular file
# A result the coordinator is waiting for (a Dask task, a pool thread) is given up after
# this much longer than the worker's own watchdog allows for two runs (fast and full plan).
COORDINATOR_SLACK_SECONDS = 120.0
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
NICENESS = 10  # the submission's; its zygote keeps 0, so the watchdog runs under a fork bomb
