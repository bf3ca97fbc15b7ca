// main() of the benchmarks whose only option is --quick: each defines bench::Run.
#include "bench/bench_util.h"

int main(int argc, char** argv) {
  return tunefarm::bench::Run(tunefarm::bench::QuickMode(argc, argv));
}
