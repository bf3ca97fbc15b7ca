// The version of tunefarm, in one place: `tunefarm version` prints it and every record and
// job of the tuning log carries it.
#ifndef TUNEFARM_COMMON_VERSION_H_
#define TUNEFARM_COMMON_VERSION_H_

namespace tunefarm {

// Bumped by hand on each release (a macro only so the two strings below share one literal).
#define TUNEFARM_VERSION "0.1.0"

inline constexpr char kTunefarmVersion[] = TUNEFARM_VERSION;
// As records and jobs name the tuner that made them.
inline constexpr char kTunerVersion[] = "tunefarm " TUNEFARM_VERSION;

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_VERSION_H_
