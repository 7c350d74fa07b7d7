"""Estimate beside measurement: the table every notebook prints after a formula."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lecture_utils.i18n import N_, tr, tr_format
from lecture_utils.tables import text_table


def _general(x: float) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:.4g}"


@dataclass
class EstimateTable:
    """Rows of (quantity, estimate, measured); ``str()`` adds the ratio measured/estimate.

    >>> t = EstimateTable("bytes"); t.add("4×8 fp32", 128, 128); print(t)  # doctest: +SKIP
    """

    unit: str = ""
    fmt: Callable[[float], str] = _general
    measured_label: str = N_("measured")  # e.g. "reported" for figures quoted from a paper
    rows: list[tuple[str, float, float]] = field(default_factory=list)

    def add(self, quantity: str, estimate: float, measured: float) -> EstimateTable:
        self.rows.append((quantity, estimate, measured))
        return self

    def ratios(self) -> list[float | None]:
        return [m / e if e else None for _, e, m in self.rows]

    def __str__(self) -> str:
        unit = tr_format(" ({unit})", unit=tr(self.unit)) if self.unit else ""
        label = tr(self.measured_label)
        estimate = tr("estimate")
        table = [(tr("quantity"), f"{estimate}{unit}", f"{label}{unit}", f"{label}/{estimate}")]
        for (name, est, meas), ratio in zip(self.rows, self.ratios()):
            table.append((tr(name), self.fmt(est), self.fmt(meas),
                          tr("n/a") if ratio is None else f"{ratio:.3f}"))
        return text_table(table, "lrrr", rule=True)
