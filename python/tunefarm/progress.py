"""The progress line `Client.watch` draws on a terminal: trials, best GFLOP/s, ETA."""

import sys

from tunefarm._stubs import job_pb2

_STATE_NAMES = {
    job_pb2.JOB_STATE_UNSPECIFIED: "unknown",
    job_pb2.JOB_QUEUED: "queued",
    job_pb2.JOB_RUNNING: "running",
    job_pb2.JOB_SUCCEEDED: "succeeded",
    job_pb2.JOB_FAILED: "failed",
    job_pb2.JOB_CANCELLED: "cancelled",
}

_TERMINAL = (job_pb2.JOB_SUCCEEDED, job_pb2.JOB_FAILED, job_pb2.JOB_CANCELLED)


def state_name(state):
    """"running", "succeeded", ... for a JobState value (as `tunefarm jobs` prints it)."""
    return _STATE_NAMES.get(state, "unknown")


def is_terminal(state):
    """Whether a job in `state` has ended (succeeded, failed or cancelled)."""
    return state in _TERMINAL


def _duration(seconds):
    seconds = int(max(seconds, 0))
    if seconds < 3600:
        return "%d:%02d" % (seconds // 60, seconds % 60)
    return "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def format_progress(status, width=24):
    """One line for a JobStatus, e.g.

    job-1 [##########--------------]  40/100 trials  best 51.3 GFLOP/s  ETA 0:42  running
    """
    done, total = status.trials_done, status.trials_total
    fraction = min(done / total, 1.0) if total > 0 else 0.0
    filled = int(round(fraction * width))
    bar = "#" * filled + "-" * (width - filled)
    best = "best %.1f GFLOP/s" % status.best_gflops if status.best_gflops > 0 else "best -"
    if is_terminal(status.state):
        eta = "took " + _duration(status.elapsed_s)
    elif status.eta_s > 0:
        eta = "ETA " + _duration(status.eta_s)
    else:
        eta = "ETA -"
    line = "%s [%s] %*d/%d trials  %s  %s  %s" % (
        status.job_id, bar, len(str(total)), done, total, best, eta, state_name(status.state))
    if status.state == job_pb2.JOB_FAILED and status.error:
        line += ": " + status.error
    return line


class ProgressBar:
    """Redraws one line in place on `stream` (a terminal); a newline once the job ends."""

    def __init__(self, stream=None):
        self._stream = stream if stream is not None else sys.stderr
        self._drawn = False

    def update(self, status):
        # \r back to the line's start, \x1b[K clears what a longer previous line left.
        self._stream.write("\r" + format_progress(status) + "\x1b[K")
        self._drawn = True
        if is_terminal(status.state):
            self.close()
        else:
            self._stream.flush()

    def close(self):
        if self._drawn:
            self._stream.write("\n")
            self._stream.flush()
            self._drawn = False
