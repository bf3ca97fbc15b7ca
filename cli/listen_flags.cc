// `--host` and `--port`, shared by the commands that serve: `tracker` (default port 9190) and
// `serve` (default port 9191).
#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, host, "0.0.0.0", "Address to listen on.");
ABSL_FLAG(int, port, -1,
          "Port to listen on (tracker default 9190, serve default 9191; 0: the OS chooses and "
          "the port is printed).");
