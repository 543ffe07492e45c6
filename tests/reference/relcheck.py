"""relcheck.py: the NumPy reference tests' one comparison (not a test itself): C's output
against the reference, as the largest difference relative to the reference's largest entry;
the worst so far is kept for the closing line, and a difference over the tolerance ends the
test with exit 1."""
import sys

import numpy as np


class RelCheck:
    def __init__(self, tol):
        self.tol, self.worst = tol, 0.0

    def __call__(self, name, ours, ref, tol=None):
        tol = self.tol if tol is None else tol
        ours, ref = np.asarray(ours, dtype=np.float64), np.asarray(ref, dtype=np.float64)
        d = np.max(np.abs(ours - ref)) / max(np.max(np.abs(ref)), 1e-300)
        self.worst = max(self.worst, d)
        ok = d <= tol
        print(f"{'OK ' if ok else 'BAD'} {name:18s} shape {str(ref.shape):14s} max rel diff {d:.3e}")
        if not ok:
            sys.exit(1)

    def summary(self):
        return f"worst relative difference {self.worst:.3e} (tolerance {self.tol:g})"
