"""Code that judges: what only the graded test cells call.

Everything else in ``lecture_utils`` is what a notebook's own cells use to teach (timing,
FLOP and byte counting, plots, widgets). The modules here drive a student's function on
prepared inputs and report plain numbers for a ``Case`` to compare, without doing the
exercise themselves:

- ``autograd``: does a hand-written backward build a graph? (notebook 05)
- ``formula``: does a function meant to be a formula call a measuring tool? (04, 05)
- ``optim``: an optimizer's trajectory and state on probe parameters; torch's own kernels (07)
- ``tokens``: which pages of a token file a batch sampler reads, and where its windows start (08)
- ``resume``: seeds, clipping, checkpoint contents and a resumed run, on faked GPUs too (09)
"""
