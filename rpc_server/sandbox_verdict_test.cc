// Each way a sandbox child can end maps to one error class, whatever order the limits fired in.
#include "rpc_server/sandbox_verdict.h"

#include <signal.h>
#include <sys/syscall.h>

#include "gtest/gtest.h"
#include "rpc_server/sandbox_protocol.h"

namespace tunefarm {
namespace {

// Wait statuses as waitpid reports them.
int Signaled(int sig) { return sig; }
int Exited(int code) { return code << 8; }

ChildEnd End(int wait_status) {
  ChildEnd end;
  end.wait_status = wait_status;
  end.timeout = absl::Seconds(2);
  end.memory_limit_mb = 1024;
  return end;
}

TEST(ClassifyChildEnd, AllocationFailureThenCrash_OutOfMemory) {
  ChildEnd end = End(Signaled(SIGSEGV));
  end.allocation_failures = 1;
  end.failed_allocation_bytes = 64 << 20;
  v1::MeasureResult r = ClassifyChildEnd(end);
  EXPECT_EQ(r.error(), v1::OUT_OF_MEMORY);
  EXPECT_NE(r.message().find("67108864 bytes"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("1024 MiB"), std::string::npos) << r.message();
}

TEST(ClassifyChildEnd, AllocationFailureThenCpuLimit_OutOfMemoryNotTimeout) {
  ChildEnd end = End(Signaled(SIGXCPU));
  end.allocation_failures = 3;
  EXPECT_EQ(ClassifyChildEnd(end).error(), v1::OUT_OF_MEMORY);
}

TEST(ClassifyChildEnd, AllocationFailureThenDeadline_OutOfMemory) {
  ChildEnd end = End(Signaled(SIGKILL));
  end.killed_at_deadline = true;
  end.allocation_failures = 1;
  v1::MeasureResult r = ClassifyChildEnd(end);
  EXPECT_EQ(r.error(), v1::OUT_OF_MEMORY);
  EXPECT_NE(r.message().find("wall-clock timeout"), std::string::npos) << r.message();
}

TEST(ClassifyChildEnd, NewHandlerExit_OutOfMemory) {
  EXPECT_EQ(ClassifyChildEnd(End(Exited(kSandboxExitOutOfMemory))).error(), v1::OUT_OF_MEMORY);
}

TEST(ClassifyChildEnd, SegfaultWithoutAllocationFailure_RuntimeError) {
  v1::MeasureResult r = ClassifyChildEnd(End(Signaled(SIGSEGV)));
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_NE(r.message().find("signal 11"), std::string::npos) << r.message();
}

TEST(ClassifyChildEnd, KilledAtDeadline_Timeout) {
  ChildEnd end = End(Signaled(SIGKILL));
  end.killed_at_deadline = true;
  v1::MeasureResult r = ClassifyChildEnd(end);
  EXPECT_EQ(r.error(), v1::TIMEOUT);
  EXPECT_NE(r.message().find("2s wall-clock timeout"), std::string::npos) << r.message();
}

TEST(ClassifyChildEnd, StoppedAtDeadline_TimeoutSaysStopped) {
  ChildEnd end = End(Signaled(SIGKILL));
  end.killed_at_deadline = true;
  end.was_stopped = true;
  v1::MeasureResult r = ClassifyChildEnd(end);
  EXPECT_EQ(r.error(), v1::TIMEOUT);
  EXPECT_NE(r.message().find("stopped itself"), std::string::npos) << r.message();
}

TEST(ClassifyChildEnd, Sigxcpu_TimeoutNamingTheCpuLimit) {
  v1::MeasureResult r = ClassifyChildEnd(End(Signaled(SIGXCPU)));
  EXPECT_EQ(r.error(), v1::TIMEOUT);
  EXPECT_NE(r.message().find("CPU-time limit"), std::string::npos) << r.message();
}

TEST(ClassifyChildEnd, SigkillNotSentByWorker_RuntimeErrorNotTimeout) {
  v1::MeasureResult r = ClassifyChildEnd(End(Signaled(SIGKILL)));
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_NE(r.message().find("did not send"), std::string::npos) << r.message();
}

TEST(ClassifyChildEnd, ForbiddenSyscall_RuntimeErrorNamingTheCall) {
  ChildEnd end = End(Exited(kSandboxExitForbiddenSyscall));
  end.forbidden_syscall = SYS_socket;
  v1::MeasureResult r = ClassifyChildEnd(end);
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_NE(r.message().find("forbidden system call: socket"), std::string::npos) << r.message();
}

TEST(ClassifyChildEnd, ForbiddenSyscallWinsOverAllocationFailure) {
  ChildEnd end = End(Exited(kSandboxExitForbiddenSyscall));
  end.forbidden_syscall = SYS_fork;
  end.allocation_failures = 1;
  EXPECT_EQ(ClassifyChildEnd(end).error(), v1::RUNTIME_ERROR);
}

TEST(ClassifyChildEnd, CorruptChannel_RuntimeError) {
  ChildEnd end = End(Signaled(SIGKILL));
  end.killed_for_corrupt_channel = true;
  end.channel_error = "frame of 1869903201 bytes exceeds the limit";
  v1::MeasureResult r = ClassifyChildEnd(end);
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_NE(r.message().find("corrupt sandbox channel"), std::string::npos) << r.message();
}

TEST(ClassifyChildEnd, ConfinementFailed_SaysWhatToCheck) {
  v1::MeasureResult r = ClassifyChildEnd(End(Exited(kSandboxExitConfinementFailed)));
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_NE(r.message().find("could not confine"), std::string::npos) << r.message();
}

TEST(SyscallName, KnownAndUnknownNumbers) {
  EXPECT_EQ(SyscallName(SYS_fork), "fork (57)");
  EXPECT_EQ(SyscallName(99999), "system call 99999");
}

}  // namespace
}  // namespace tunefarm
