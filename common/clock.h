// An injectable clock, so tests drive lease expiry, heartbeat staleness, long-poll deadlines,
// progress and ETA instead of sleeping. The tuner, the job manager and the tracker take one
// (default: RealClock::Get()); kernel timing on workers (rpc_server/timing) and gRPC deadlines
// stay on the real clocks they are defined against.
#ifndef TUNEFARM_COMMON_CLOCK_H_
#define TUNEFARM_COMMON_CLOCK_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace tunefarm {

// Source of "now" for every time decision of a process. Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  // Waits on `cv` (with `mu` held, as absl::CondVar::WaitWithDeadline) until signalled or until
  // this clock reaches `deadline`. True when the deadline passed. Like any condition-variable
  // wait it may return early without either, so callers re-check their condition in a loop.
  virtual bool WaitWithDeadline(absl::CondVar* cv, absl::Mutex* mu, absl::Time deadline) const = 0;
};

// The wall clock (absl::Now()).
class RealClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  bool WaitWithDeadline(absl::CondVar* cv, absl::Mutex* mu, absl::Time deadline) const override {
    return cv->WaitWithDeadline(mu, deadline);
  }
  // A process-wide instance; stateless, so sharing it hides nothing.
  static Clock* Get() {
    static RealClock clock;
    return &clock;
  }
};

// A clock that only moves when told to; for tests. A wait ends when signalled or once Advance
// has moved the time past its deadline; it looks at the time every millisecond of real time
// (Advance cannot wake a waiter itself: it does not hold the waiter's mutex).
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::UnixEpoch() + absl::Hours(24)) : now_(start) {}
  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  bool WaitWithDeadline(absl::CondVar* cv, absl::Mutex* mu, absl::Time deadline) const override {
    if (Now() >= deadline) return true;
    cv->WaitWithTimeout(mu, absl::Milliseconds(1));
    return Now() >= deadline;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_CLOCK_H_
