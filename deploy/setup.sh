#!/usr/bin/env bash
# Installs the Debian 12 packages tunefarm builds and runs against. Idempotent: when every
# package is present it changes nothing and makes no network access.
#
#   deploy/setup.sh              install what building and running tunefarm needs (sudo when not root)
#   deploy/setup.sh --tests      also what only the test suite and benchmarks use (PyTorch, ...),
#                                and the --arm64 packages (the suite runs an emulated board)
#   deploy/setup.sh --arm64      also the aarch64 cross build and emulator (deploy/arm64/): adds
#                                dpkg's arm64 architecture and Debian's arm64 -dev libraries
#   deploy/setup.sh --check      only report what is missing; exit 1 if anything is
set -euo pipefail

# One package per line, with why it is needed.
PACKAGES=(
  bazel-bootstrap        # build system (Bazel 4.2.3, offline WORKSPACE mode)
  g++                    # C++17 compiler Bazel drives
  pkg-config             # link lines for system libraries (third_party/pkg_config.bzl)
  protobuf-compiler      # protoc
  protobuf-compiler-grpc # grpc_cpp_plugin, and grpc_python_plugin for the Python client
  libprotobuf-dev        # protobuf 3.21 runtime and headers
  libgrpc++-dev          # gRPC 1.51
  libabsl-dev            # Abseil 20220623
  llvm-16-dev            # LLVM 16: IR builder, ORC JIT, x86/AArch64/NVPTX backends
  liblld-16-dev          # lld as a library: candidates are linked in-process, not by `cc`
  libxgboost-dev         # XGBoost C API: the cost model
  libsqlite3-dev         # the tuning log
  libseccomp-dev         # the kernel sandbox's system-call filter
  libssl-dev             # libcrypto: artifact hashes, session keys
  libgtest-dev           # GoogleTest
  libgmock-dev           # GoogleMock
  libopenblas-dev        # GEMM baseline for benchmarks
  libdnnl-dev            # convolution baseline for benchmarks (oneDNN)
  libdlpack-dev          # DLTensor, the kernel C ABI's tensor descriptor
  clang-format           # formatting check run by the test command
  python3                # small helper scripts in tests
  openssl                # certificates for the TLS test
  iproute2               # network namespaces of the chaos test (ip netns, veth, bridge)
  clang-16               # fuzz targets instrumented (--config=fuzz; the test command runs them)
  libclang-rt-16-dev     # libFuzzer's runtime, linked by every fuzz target
  libonnx-dev            # ONNX 1.12: model protobufs, checker and shape inference (graph/)
  libcpp-httplib-dev     # HTTP server of the dashboard and /metrics (serve/tracker --http)
)

# Only the test suite and the benchmarks need these (the README's test command installs them).
TEST_PACKAGES=(
  python3-torch          # PyTorch 1.13: builds the test models, the model benchmark's baseline
  python3-torchvision    # ResNet-18/50 and MobileNetV2 with random weights (no downloads)
  python3-onnx           # onnx.helper models and torch.onnx.export's dependency
  python3-grpcio         # the Python client (python/tunefarm) and its tests: gRPC 1.51
  python3-protobuf       # the Python client's generated messages (protobuf 3.21)
  python3-pytest         # runs python/tests (//python:pytest_test)
  python3-yaml           # tests/k8s_manifests_test.sh reads the rendered Kubernetes manifests
  chromium               # tests/dashboard_browser_test.sh loads the dashboard headless
  python3-prometheus-client # the same test parses /metrics with Prometheus' own parser
  curl                   # the same test fetches the JSON endpoints and /metrics
)
# kubectl for the offline check of deploy/k8s (tests/k8s_manifests_test.sh): Debian's
# kubernetes-client, unless some kubectl is installed already (another package's
# /usr/bin/kubectl would conflict with it, and any kubectl serves the check).
if ! command -v kubectl >/dev/null; then
  TEST_PACKAGES+=(kubernetes-client)
fi

# The aarch64 device server's cross build (deploy/arm64/build.sh) and the emulated board of
# tests/arm64_server_test.sh. The :arm64 libraries are Multi-Arch: same, installed beside the
# amd64 ones (their versions must match, as they do within one Debian release).
ARM64_PACKAGES=(
  g++-aarch64-linux-gnu  # the cross compiler
  qemu-user-static       # qemu-aarch64-static runs the aarch64 server and its sandbox child
  file                   # build.sh reports what it built
  libgrpc++-dev:arm64    # the same libraries as above, for aarch64
  libprotobuf-dev:arm64
  libabsl-dev:arm64
  libseccomp-dev:arm64
  libssl-dev:arm64
  libgomp1:arm64         # the board loads kernels with parallel loops (OpenMP) against it
)

arm64=""
for arg in "$@"; do
  if [[ "$arg" == "--tests" ]]; then
    PACKAGES+=("${TEST_PACKAGES[@]}")
    arm64=1
  fi
  if [[ "$arg" == "--arm64" ]]; then
    arm64=1
  fi
done
if [[ -n "$arm64" ]]; then
  PACKAGES+=("${ARM64_PACKAGES[@]}")
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi
if [[ " $* " == *" --check "* ]]; then
  echo "setup: missing: ${missing[*]}"
  exit 1
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install packages" >&2; exit 1; }
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# The :arm64 packages need dpkg to know the architecture first (once; idempotent).
if [[ -n "$arm64" ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
echo "setup: done"
