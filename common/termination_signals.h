// SIGTERM and SIGINT as every long-running tunefarm process handles them: blocked in all
// threads, then received by one thread with sigwait, so a stop is an orderly shutdown (drain,
// finish the measurement, stop after the round) rather than a signal handler's.
#ifndef TUNEFARM_COMMON_TERMINATION_SIGNALS_H_
#define TUNEFARM_COMMON_TERMINATION_SIGNALS_H_

namespace tunefarm {

// Blocks SIGTERM and SIGINT in the calling thread and every thread it creates later; call
// before starting servers or threads.
void BlockTerminationSignals();

// Waits for SIGTERM or SIGINT (blocked first) and returns it.
int WaitForTerminationSignal();

// The same, up to `timeout_ms`; 0 on timeout.
int WaitForTerminationSignalFor(int timeout_ms);

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_TERMINATION_SIGNALS_H_
