// Fuzz target: one line of an AutoTVM log, as `tunefarm import-log` reads it. A line parses
// into a record that the log accepts and that formats back, or it is refused with a status;
// nothing else may happen.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "db/autotvm_log.h"
#include "db/record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view line(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tunefarm::db::Record> record = tunefarm::db::ParseAutotvmLine(line);
  if (!record.ok()) return 0;
  // What the parser returns, the log must accept: a parsed line is never a bad record.
  if (!tunefarm::db::ValidateRecord(*record).ok()) std::abort();
  absl::StatusOr<std::string> again = tunefarm::db::FormatAutotvmLine(*record);
  if (again.ok()) {
    absl::StatusOr<tunefarm::db::Record> reparsed = tunefarm::db::ParseAutotvmLine(*again);
    if (!reparsed.ok()) std::abort();  // our own output must read back
  }
  return 0;
}
