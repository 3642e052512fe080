"""Progress of a long fit: a tqdm bar per step when tqdm is installed, plain lines on stderr
otherwise. Only public counts are shown (the step of the plan, the sampler's phase and its
iterations), never times. Plain lines: one when a phase starts and one at each tenth of
its iterations."""
import sys


class Progress:
    """A callback ``progress(step, steps, phase, done, total)`` for ``_core.Spec.fit``."""

    def __init__(self, file=None):
        self.file = sys.stderr if file is None else file
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        self._tqdm = tqdm
        self._bar = None
        self._key = None

    def __call__(self, step, steps, phase, done, total):
        if self._tqdm is not None:
            key = (step, phase)
            if key != self._key:
                self.close()
                self._key = key
                self._bar = self._tqdm(
                    total=total or None, desc=f"step {step}/{steps} {phase}", file=self.file, leave=False
                )
            self._bar.n = done
            self._bar.refresh()
        else:
            key = (step, phase, (10 * done) // total if total else 0)
            if key != self._key:
                self._key = key
                print(f"step {step}/{steps} {phase} {done}/{total}", file=self.file, flush=True)

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
