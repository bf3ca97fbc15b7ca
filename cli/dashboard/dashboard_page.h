// The dashboard's page (index.html beside this file), compiled in so the binary serves it
// without files next to it.
#ifndef TUNEFARM_CLI_DASHBOARD_DASHBOARD_PAGE_H_
#define TUNEFARM_CLI_DASHBOARD_DASHBOARD_PAGE_H_

namespace tunefarm::cli {

// index.html, NUL-terminated.
extern const char kDashboardPage[];

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_DASHBOARD_DASHBOARD_PAGE_H_
