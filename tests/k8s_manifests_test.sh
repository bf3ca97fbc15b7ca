#!/usr/bin/env bash
# Offline check of the Kubernetes manifests (deploy/k8s) and the container build file
# (deploy/k8s/Containerfile): no cluster, no network, no container engine.
#
#  1. `kubectl kustomize` renders both variants (deploy/k8s: plaintext; deploy/k8s/tls).
#  2. Every object decodes into kubectl's typed API objects (`kubectl set image|selector
#     --local`: wrong types and malformed quantities fail), and no field of ours is dropped
#     on the way (a misspelt or unknown field is). Server-side OpenAPI validation
#     (`--validate=strict`, `apply --dry-run`) needs an API server and is not done.
#  3. Structural facts, asserted on the rendered objects: resources on every container, gRPC
#     probes on the port the tracker and the job service listen on (with TLS, which kubelet's
#     gRPC probe cannot speak, exec probes running the image's `tunefarm health` on that port
#     with --tls_ca in the mounted Secret, a --tls_server_name of the pod's Service and every
#     flag one of `tunefarm health --help`), GPU requests, the device-key node selector, the
#     tuning log on a volumeClaimTemplate, every flag a real flag of that `tunefarm`
#     subcommand (from the built binary's help) with a value of its type, every TUNEFARM_*
#     variable one the binary reads, Secrets and keys the examples define, TLS files inside
#     a mounted Secret, peers dialling the tracker's Service, restricted pod security.
#  4. The `kubectl create secret` commands the examples document run (client-side dry run)
#     and give the examples' names and keys.
#  5. The Containerfile: only debian:12 stages, no downloads outside apt, the stages it copies
#     from exist, the entrypoint, the user the manifests run as; runtime_packages.sh maps the
#     libraries of the binaries this suite built to installed Debian packages.
#  6. Each check is shown to fail: a broken copy of the manifests per assertion must be
#     refused for the right reason.
set -euo pipefail

kubectl_bin=$(command -v kubectl || true)
if [[ -z "$kubectl_bin" ]]; then
  echo "FAIL: kubectl not found; install Debian's kubernetes-client (deploy/setup.sh --tests)" >&2
  exit 1
fi
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
# Never a real cluster: an empty kubeconfig, and kubectl's caches in the test's directory.
: >"$tmp/kubeconfig"
export KUBECONFIG="$tmp/kubeconfig" HOME="$tmp"
echo "kubectl: $kubectl_bin ($("$kubectl_bin" version --client 2>/dev/null | head -n 1))"
# Runfiles are symlinks, which kustomize does not follow: check a plain copy.
rm -rf "$tmp/k8s"
cp -rL deploy/k8s "$tmp/k8s"

exec /usr/bin/python3 - "$kubectl_bin" "$PWD/cli/tunefarm" "$PWD/rpc_server/tunefarm_sandbox" \
  "$tmp/k8s" "$tmp" <<'PY'
import copy
import json
import os
import posixpath
import re
import subprocess
import sys

import yaml

KUBECTL, TUNEFARM, SANDBOX, K8S, TMP = sys.argv[1:6]
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)


def load_all(text):
    return [d for d in yaml.safe_load_all(text) if d]


# ---------------------------------------------------------------- the binary's own flags
SUBCOMMANDS = {}  # subcommand -> {flag: default}
ENV_VARS = set()
DEFAULT_PORTS = {}


def flags_of(sub):
    if sub not in SUBCOMMANDS:
        p = run([TUNEFARM, sub, "--help"])
        if p.returncode != 0:
            SUBCOMMANDS[sub] = None
            return None
        flags = {}
        for line in p.stdout.splitlines():
            m = re.match(r"^  --([a-z0-9_]+)  (.*) \(default: (.*)\)$", line)
            if m:
                flags[m.group(1)] = m.group(3)
                ENV_VARS.update(re.findall(r"\$(TUNEFARM_[A-Z_]+)", m.group(2)))
                if m.group(1) == "port":
                    for name, port in re.findall(r"(\w+) default (\d+)", m.group(2)):
                        DEFAULT_PORTS[name] = int(port)
        if not flags:
            sys.exit(f"FAIL: `tunefarm {sub} --help` lists no flags:\n{p.stdout}")
        SUBCOMMANDS[sub] = flags
    return SUBCOMMANDS[sub]


for sub in ("tracker", "serve", "server", "health"):
    assert flags_of(sub), f"tunefarm {sub} --help failed"
assert {"TUNEFARM_WORKER_TOKEN", "TUNEFARM_CLIENT_TOKEN"} <= ENV_VARS, ENV_VARS
assert DEFAULT_PORTS.get("tracker") and DEFAULT_PORTS.get("serve"), DEFAULT_PORTS


def parse_args(args):
    """[subcommand, {flag: value}], or an error string."""
    if not args:
        return None, {}, "no arguments (the image's entrypoint is `tunefarm`: args[0] is the subcommand)"
    sub, flags, i = args[0], {}, 1
    while i < len(args):
        a = args[i]
        if not a.startswith("-"):
            return sub, flags, f"positional argument {a!r}"
        name, eq, value = a.lstrip("-").partition("=")
        if not eq:
            if i + 1 < len(args) and not args[i + 1].startswith("-"):
                value, i = args[i + 1], i + 1
            else:
                value = "true"
        if name in flags:
            return sub, flags, f"--{name} given twice"
        flags[name] = value
        i += 1
    return sub, flags, None


def parse_command(args, known):
    """(positionals, {flag: value}, problem) of a command line after its subcommand; `known`
    is the subcommand's {flag: default}: a flag whose default is not a bool takes a value
    (`--f=v` or `--f v`)."""
    positional, flags, i = [], {}, 0
    while i < len(args):
        a = args[i]
        if not a.startswith("-"):
            positional.append(a)
            i += 1
            continue
        name, eq, value = a.lstrip("-").partition("=")
        if not eq:
            if known.get(name) in ("true", "false"):
                value = "true"
            elif i + 1 < len(args):
                value, i = args[i + 1], i + 1
            else:
                return positional, flags, f"--{name} without a value"
        if name in flags:
            return positional, flags, f"--{name} given twice"
        flags[name] = value
        i += 1
    return positional, flags, None


def image_binary(containerfile_text):
    """The image's tunefarm (the final stage's ENTRYPOINT[0]), or None."""
    entry = None
    for line in containerfile_text.splitlines():
        if line.startswith("ENTRYPOINT "):
            try:
                entry = json.loads(line[len("ENTRYPOINT "):])
            except json.JSONDecodeError:
                entry = None
    return entry[0] if isinstance(entry, list) and entry else None


HEALTH_DEADLINE_S = 5  # cli/cmd_health.cc: the Check's own deadline


def is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


# ---------------------------------------------------------------- quantities
UNITS = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
         "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def quantity(q):
    m = re.fullmatch(r"([0-9.]+)([a-zA-Z]*)", str(q))
    if not m or m.group(2) not in UNITS:
        raise ValueError(f"bad quantity {q!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


# ---------------------------------------------------------------- the structural checks
def pod_spec(d):
    return d["spec"]["template"]["spec"]


def containers_of(d):
    spec = pod_spec(d)
    return spec.get("initContainers", []) + spec.get("containers", [])


def secret_keys(examples):
    return {s["metadata"]["name"]: set(s.get("stringData", {})) | set(s.get("data", {}))
            for s in examples if s.get("kind") == "Secret"}


def check(docs, secrets):
    """Every broken fact about `docs`, one string each."""
    errors = []
    err = errors.append
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d.get("kind"), []).append(d)
    workloads = [d for d in docs if d.get("kind") in WORKLOAD_KINDS]
    services = by_kind.get("Service", [])
    namespaces = by_kind.get("Namespace", [])
    if len(namespaces) != 1:
        err(f"want one Namespace, got {len(namespaces)}")
        ns = None
    else:
        ns = namespaces[0]["metadata"]["name"]
        labels = namespaces[0]["metadata"].get("labels", {})
        if labels.get("pod-security.kubernetes.io/enforce") != "restricted":
            err(f"namespace {ns}: does not enforce the restricted pod security standard")
    for d in docs:
        if d.get("kind") != "Namespace" and d["metadata"].get("namespace") != ns:
            err(f"{d.get('kind')}/{d['metadata'].get('name')}: not in namespace {ns}")

    roles = {}  # subcommand -> [(workload, container, flags)]
    for d in workloads:
        name = f"{d['kind']}/{d['metadata']['name']}"
        spec = pod_spec(d)
        sel = d["spec"].get("selector", {}).get("matchLabels", {})
        tpl_labels = d["spec"]["template"]["metadata"].get("labels", {})
        if not sel or any(tpl_labels.get(k) != v for k, v in sel.items()):
            err(f"{name}: selector {sel} does not match its pod labels {tpl_labels}")
        psc = spec.get("securityContext", {})
        if psc.get("runAsNonRoot") is not True:
            err(f"{name}: pod securityContext.runAsNonRoot is not true")
        for v in spec.get("volumes", []):
            if "hostPath" in v:
                err(f"{name}: hostPath volume {v['name']}")
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        claims = {c["metadata"]["name"] for c in d["spec"].get("volumeClaimTemplates", [])}
        for c in containers_of(d):
            cname = f"{name} container {c['name']}"
            # Resources: requests and limits for CPU and memory, requests within limits.
            res = c.get("resources", {})
            for kind in ("requests", "limits"):
                for r in ("cpu", "memory"):
                    if r not in res.get(kind, {}):
                        err(f"{cname}: no {kind}.{r}")
            for r, want in res.get("requests", {}).items():
                have = res.get("limits", {}).get(r)
                try:
                    if have is not None and quantity(want) > quantity(have):
                        err(f"{cname}: requests.{r} {want} above limits.{r} {have}")
                except ValueError as e:
                    err(f"{cname}: {e}")
            # Security context.
            sc = c.get("securityContext", {})
            if sc.get("allowPrivilegeEscalation") is not False:
                err(f"{cname}: allowPrivilegeEscalation is not false")
            if sc.get("privileged"):
                err(f"{cname}: privileged")
            if "ALL" not in sc.get("capabilities", {}).get("drop", []):
                err(f"{cname}: capabilities do not drop ALL")
            if sc.get("capabilities", {}).get("add"):
                err(f"{cname}: adds capabilities {sc['capabilities']['add']}")
            seccomp = sc.get("seccompProfile", psc.get("seccompProfile", {})).get("type")
            if seccomp not in ("RuntimeDefault", "Localhost"):
                err(f"{cname}: seccomp profile {seccomp}, not RuntimeDefault or Localhost")
            if sc.get("readOnlyRootFilesystem") is not True:
                err(f"{cname}: root file system not read-only")
            if c.get("command"):
                err(f"{cname}: overrides the image's entrypoint (tunefarm)")
            if not str(c.get("image", "")).split("/")[-1].startswith("tunefarm:"):
                err(f"{cname}: image {c.get('image')} is not tunefarm")
            # Flags: real flags of the subcommand, values of their type.
            sub, flags, problem = parse_args(c.get("args", []))
            if problem:
                err(f"{cname}: args: {problem}")
            known = flags_of(sub) if sub else None
            if known is None:
                err(f"{cname}: `tunefarm {sub}` is not a subcommand")
                continue
            for f, value in flags.items():
                if f not in known:
                    err(f"{cname}: --{f} is not a flag of `tunefarm {sub}`")
                    continue
                default = known[f]
                if default in ("true", "false") and value not in ("true", "false"):
                    err(f"{cname}: --{f}={value}: not a bool")
                elif re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", default) and not is_number(value):
                    err(f"{cname}: --{f}={value}: not a number")
            # Environment: TUNEFARM_* names the binary reads; secrets that exist; $(VAR)s set.
            env = {e["name"]: e for e in c.get("env", [])}
            for e in env.values():
                if e["name"].startswith("TUNEFARM_") and e["name"] not in ENV_VARS:
                    err(f"{cname}: ${e['name']} is not read by tunefarm ({sorted(ENV_VARS)})")
                ref = e.get("valueFrom", {}).get("secretKeyRef")
                if ref and ref.get("key") not in secrets.get(ref.get("name"), set()):
                    err(f"{cname}: ${e['name']} from Secret {ref.get('name')} key "
                        f"{ref.get('key')}, which no example Secret defines")
            for a in c.get("args", []):
                for var in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", a):
                    if var not in env:
                        err(f"{cname}: args use $({var}), which its env does not set")
            # Mounts: a volume or claim each; files named by flags inside mounted Secrets.
            mounts = c.get("volumeMounts", [])
            for m in mounts:
                if m["name"] not in volumes and m["name"] not in claims:
                    err(f"{cname}: mount {m['name']} has no volume")

            def in_mounted_secret(path):
                found = False
                for m in mounts:
                    v = volumes.get(m["name"], {})
                    if "secret" not in v or not path.startswith(m["mountPath"].rstrip("/") + "/"):
                        continue
                    rel = path[len(m["mountPath"].rstrip("/")) + 1:]
                    items = v["secret"].get("items")
                    keys = ({i["path"]: i["key"] for i in items} if items else
                            {k: k for k in secrets.get(v["secret"]["secretName"], ())})
                    if rel in keys and keys[rel] in secrets.get(v["secret"]["secretName"], ()):
                        found = True
                return found

            for f in ("tls_cert", "tls_key", "tls_ca", "tls_client_ca", "tls_client_cert",
                      "tls_client_key"):
                if f in flags and not in_mounted_secret(flags[f]):
                    err(f"{cname}: --{f}={flags[f]} is not a key of a mounted Secret")
            roles.setdefault(sub, []).append((d, c, flags))
            # Probes.
            probes = {p: c.get(p) for p in ("readinessProbe", "livenessProbe", "startupProbe")}
            tls = "tls_cert" in flags
            if sub in ("tracker", "serve"):
                port = int(flags.get("port", DEFAULT_PORTS[sub]))
                if port not in [p.get("containerPort") for p in c.get("ports", [])]:
                    err(f"{cname}: listens on {port} (--port), which is not a containerPort")
                if flags.get("host", "0.0.0.0") not in ("0.0.0.0", "::", "127.0.0.1", "localhost"):
                    err(f"{cname}: --host={flags['host']}: probes dial 127.0.0.1, where it "
                        "does not listen")
                pod_labels = d["spec"]["template"]["metadata"].get("labels", {})
                own_services = [s["metadata"]["name"] for s in services
                                if s["spec"].get("selector") and
                                all(pod_labels.get(k) == v
                                    for k, v in s["spec"]["selector"].items())]
                for p in ("readinessProbe", "livenessProbe"):
                    probe = probes[p] or {}
                    if not tls:
                        if "grpc" not in probe:
                            err(f"{cname}: {p} is not a grpc probe on the grpc.health.v1 service")
                        elif probe["grpc"].get("port") != port:
                            err(f"{cname}: {p} asks port {probe['grpc'].get('port')}, "
                                f"but it listens on {port}")
                        continue
                    # TLS: kubelet's gRPC probe speaks plaintext only; the image's
                    # `tunefarm health` asks grpc.health.v1 over TLS.
                    command = (probe.get("exec") or {}).get("command") or []
                    if command[:2] != [IMAGE_BINARY, "health"]:
                        err(f"{cname}: {p} is not an exec probe running `{IMAGE_BINARY} "
                            f"health` (kubelet's gRPC probe cannot speak TLS): {probe}")
                        continue
                    known_h = flags_of("health")
                    positional, hflags, problem = parse_command(command[2:], known_h)
                    if problem:
                        err(f"{cname}: {p}: {problem}")
                    for f in hflags:
                        if f not in known_h:
                            err(f"{cname}: {p}: --{f} is not a flag of `tunefarm health`")
                    if len(positional) != 1:
                        err(f"{cname}: {p}: `tunefarm health` wants one HOST:PORT, "
                            f"got {positional}")
                    else:
                        host, _, hport = positional[0].rpartition(":")
                        if host not in ("127.0.0.1", "localhost", "[::1]"):
                            err(f"{cname}: {p} dials {host}, not the pod's own loopback")
                        if hport != str(port):
                            err(f"{cname}: {p} asks port {hport}, but it listens on {port}")
                    if "tls_ca" not in hflags:
                        err(f"{cname}: {p}: no --tls_ca: `tunefarm health` would speak "
                            "plaintext to a TLS server")
                    elif not in_mounted_secret(hflags["tls_ca"]):
                        err(f"{cname}: {p}: --tls_ca={hflags['tls_ca']} is not a key of a "
                            "mounted Secret")
                    name = hflags.get("tls_server_name", "")
                    if not name:
                        err(f"{cname}: {p}: no --tls_server_name: the certificate does not "
                            "name 127.0.0.1")
                    elif name.split(".")[0] not in own_services:
                        err(f"{cname}: {p}: --tls_server_name={name} is not a Service of "
                            f"this pod ({own_services}), the names its certificate holds")
                    timeout = probe.get("timeoutSeconds", 1)
                    if timeout <= HEALTH_DEADLINE_S:
                        err(f"{cname}: {p} timeoutSeconds {timeout}: not above the "
                            f"command's own {HEALTH_DEADLINE_S} s deadline")
            elif sub == "server":
                for p, probe in probes.items():
                    if probe and (any(k in probe for k in ("grpc", "httpGet", "tcpSocket")) or
                                  "health" in (probe.get("exec") or {}).get("command", [])):
                        err(f"{cname}: {p} asks a port; a device server listens on none")
                limits = res.get("limits", {})
                gpus = limits.get("nvidia.com/gpu")
                if flags.get("device", "cpu").startswith("cuda"):
                    if not gpus or int(gpus) < 1:
                        err(f"{cname}: --device={flags['device']} but limits no nvidia.com/gpu")
                    elif res.get("requests", {}).get("nvidia.com/gpu", gpus) != gpus:
                        err(f"{cname}: nvidia.com/gpu requests differ from limits")
                elif gpus:
                    err(f"{cname}: a CPU server holding nvidia.com/gpu")
                selector = spec.get("nodeSelector", {})
                key = flags.get("key")
                if d["kind"] == "DaemonSet" and selector.get("tunefarm.dev/device-key") != key:
                    err(f"{cname}: DaemonSet nodeSelector {selector} does not carry "
                        f"tunefarm.dev/device-key: {key}")
                if not any(v == key for k, v in selector.items() if k.startswith("tunefarm.dev/")):
                    err(f"{cname}: no tunefarm.dev/ node label selects key {key}")
            # The job service: the tuning log on a claim of the StatefulSet.
            if sub == "serve":
                db = flags.get("db", "")
                if d["kind"] != "StatefulSet":
                    err(f"{cname}: the job service is not a StatefulSet")
                if not db.startswith("/"):
                    err(f"{cname}: --db {db!r} is not an absolute path")
                on_claim = [m for m in mounts if m["name"] in claims and
                            posixpath.dirname(db).startswith(m["mountPath"].rstrip("/"))]
                if not on_claim:
                    err(f"{cname}: --db {db} is not on a volumeClaimTemplate's mount")

    # Peers dial the tracker through its Service, which reaches the port it listens on.
    trackers = roles.get("tracker", [])
    if len(trackers) != 1:
        err(f"want one tracker container, got {len(trackers)}")
    for sub in ("serve", "server"):
        if not roles.get(sub):
            err(f"no `tunefarm {sub}` container")
    for d, c, flags in trackers:
        if d["kind"] == "Deployment" and d["spec"].get("replicas", 1) != 1:
            err("the tracker has more than one replica")
    for sub in ("serve", "server"):
        for d, c, flags in roles.get(sub, []):
            cname = f"{d['kind']}/{d['metadata']['name']} container {c['name']}"
            host, _, port = flags.get("tracker", "").rpartition(":")
            svc = [s for s in services if s["metadata"]["name"] == host.split(".")[0]]
            if not svc:
                err(f"{cname}: --tracker={flags.get('tracker')} names no Service")
                continue
            s = svc[0]
            sp = [p for p in s["spec"].get("ports", []) if str(p.get("port")) == port]
            if not sp:
                err(f"{cname}: Service {host} has no port {port}")
                continue
            for td, tc, tflags in trackers:
                tl = td["spec"]["template"]["metadata"].get("labels", {})
                if any(tl.get(k) != v for k, v in s["spec"].get("selector", {}).items()):
                    err(f"{cname}: Service {host} does not select the tracker's pod")
                target = sp[0].get("targetPort", sp[0]["port"])
                ports = {p.get("name"): p["containerPort"] for p in tc.get("ports", [])}
                target = ports.get(target, target)
                if target != int(tflags.get("port", DEFAULT_PORTS["tracker"])):
                    err(f"{cname}: Service {host}:{port} leads to {target}, "
                        f"not to the tracker's --port")
    return errors


# ---------------------------------------------------------------- kubectl's typed decoding
KUBECTL_MINOR = int(re.sub(r"\D.*", "", json.loads(
    run([KUBECTL, "version", "--client", "-o", "json"]).stdout)["clientVersion"]["minor"]))


def paths(x, prefix=""):
    out = set()
    if isinstance(x, dict):
        for k, v in x.items():
            out.add(f"{prefix}.{k}")
            out |= paths(v, f"{prefix}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out |= paths(v, f"{prefix}[{i}]")
    return out


def typed_check(docs, tag):
    """Decodes each workload and Service into kubectl's typed objects; reports decoding errors
    and the fields of ours that decoding dropped (unknown to the API)."""
    errors, notes = [], set()
    for n, d in enumerate(docs):
        if d.get("kind") in WORKLOAD_KINDS:
            cmd = ["set", "image", "--local", "*=typed-check:0"]
        elif d.get("kind") == "Service":
            cmd = ["set", "selector", "--local", "typed-check=0"]
        else:
            continue
        f = os.path.join(TMP, f"typed-{tag}-{n}.yaml")
        with open(f, "w") as out:
            yaml.safe_dump(d, out)
        p = run([KUBECTL] + cmd + ["-f", f, "-o", "json"])
        name = f"{d['kind']}/{d['metadata']['name']}"
        if p.returncode != 0:
            errors.append(f"{name}: kubectl cannot decode it: {p.stderr.strip()[:400]}")
            continue
        dropped = paths(d) - paths(json.loads(p.stdout))
        dropped = {x for x in dropped if not x.startswith(".spec.selector")}  # set selector
        # gRPC probes came with Kubernetes 1.24 (beta; GA 1.27): an older kubectl (Debian 12's
        # is 1.20) does not know the field. The structural checks above still check them.
        if KUBECTL_MINOR < 24:
            old = {x for x in dropped if re.search(r"Probe\.grpc(\.|$)", x)}
            if old:
                notes.add(f"kubectl 1.{KUBECTL_MINOR} predates gRPC probes: their fields are "
                          "not checked by its types")
            dropped -= old
        for x in sorted(dropped):
            errors.append(f"{name}: field {x} is unknown to the Kubernetes API (dropped by kubectl)")
    return errors, notes


# ---------------------------------------------------------------- render and check
def kustomize(path):
    p = run([KUBECTL, "kustomize", path])
    if p.returncode != 0:
        sys.exit(f"FAIL: kubectl kustomize {path}:\n{p.stderr}")
    return load_all(p.stdout)


failures = 0


def report(what, errors):
    global failures
    if errors:
        failures += 1
        print(f"FAIL: {what}")
        for e in errors:
            print(f"    {e}")
    else:
        print(f"ok: {what}")


examples = []
for f in ("secret-tokens.example.yaml", "secret-tls.example.yaml"):
    with open(os.path.join(K8S, f)) as fh:
        examples += load_all(fh.read())
SECRETS = secret_keys(examples)

IMAGE_BINARY = image_binary(open(os.path.join(K8S, "Containerfile")).read())
if not IMAGE_BINARY:
    sys.exit("FAIL: the Containerfile has no ENTRYPOINT [\"/path/tunefarm\", ...]")
variants = {"plaintext": kustomize(K8S), "tls": kustomize(os.path.join(K8S, "tls"))}
for tag, docs in variants.items():
    kinds = sorted(f"{d['kind']}/{d['metadata']['name']}" for d in docs)
    print(f"{tag}: {len(docs)} objects: {', '.join(kinds)}")
    report(f"{tag}: structural checks", check(docs, SECRETS))
    errors, notes = typed_check(docs + examples, tag)
    for n in sorted(notes):
        print(f"note: {n}")
    report(f"{tag}: every object decodes into kubectl's API types, no field dropped", errors)
tls_on = [c for d in variants["tls"] if d["kind"] in WORKLOAD_KINDS for c in containers_of(d)
          if any(a.startswith("--tls_") for a in c.get("args", []))]
report("tls: every container speaks TLS",
       [] if len(tls_on) == sum(len(containers_of(d)) for d in variants["tls"]
                                if d["kind"] in WORKLOAD_KINDS) else ["some container has no --tls_ flag"])

# The documented `kubectl create secret` commands, run as written (bash, client-side dry run).
def documented_command(text):
    lines = [l[1:].strip() for l in text.splitlines() if l.startswith("#")]
    for i, l in enumerate(lines):
        if l.startswith("kubectl ") and " create secret " in l:
            cmd = [l]
            while cmd[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd.append(lines[i])
            return " ".join(c.rstrip("\\").strip() for c in cmd)
    return None


errors = []
for f in ("secret-tokens.example.yaml", "secret-tls.example.yaml"):
    text = open(os.path.join(K8S, f)).read()
    command = documented_command(text)
    if not command:
        errors.append(f"{f}: no `kubectl ... create secret` command in its comments")
        continue
    for name in re.findall(r"--from-file=[^=]+=(\S+)", command):
        with open(os.path.join(TMP, name), "w") as out:
            out.write("placeholder\n")
    env = dict(os.environ, PATH=os.path.dirname(KUBECTL) + ":" + os.environ.get("PATH", "/usr/bin"))
    p = run(["bash", "-c", command + " --dry-run=client -o json"], cwd=TMP, env=env)
    if p.returncode != 0:
        errors.append(f"{f}: `{command}` fails: {p.stderr.strip()}")
        continue
    made = json.loads(p.stdout)
    example = [s for s in load_all(text) if s["kind"] == "Secret"][0]
    want = (example["metadata"]["name"], example["metadata"]["namespace"],
            sorted(example.get("stringData", {})))
    got = (made["metadata"]["name"], made["metadata"].get("namespace"), sorted(made["data"]))
    if want != got:
        errors.append(f"{f}: its command makes {got}, its example is {want}")
    elif any(not v for v in made["data"].values()):
        errors.append(f"{f}: its command leaves a key empty")
report("the documented `kubectl create secret` commands make the example Secrets", errors)


# ---------------------------------------------------------------- the Containerfile
def containerfile_errors(text, run_as):
    errors = []
    lines, cur = [], ""
    for raw in text.splitlines():
        if raw.strip().startswith("#") and not cur:
            continue
        cur += raw.rstrip("\\").strip() + " " if raw.rstrip().endswith("\\") else raw.strip()
        if not raw.rstrip().endswith("\\"):
            if cur.strip():
                lines.append(cur.strip())
            cur = ""
    known = {"FROM", "RUN", "COPY", "ENV", "WORKDIR", "USER", "ENTRYPOINT", "CMD", "EXPOSE",
             "LABEL", "ARG", "VOLUME", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "ONBUILD"}
    stages, last = [], []
    for line in lines:
        op, _, rest = line.partition(" ")
        if op.upper() != op or op not in known:
            errors.append(f"unknown instruction {op!r}" if op.upper() not in known else
                          f"instruction {op!r} not in upper case")
            continue
        if op == "FROM":
            m = re.fullmatch(r"(\S+)(?:\s+AS\s+(\S+))?", rest.strip(), re.I)
            if not m or m.group(1) != "debian:12":
                errors.append(f"stage from {rest!r}, not debian:12")
            stages.append(m.group(2) if m else None)
            last = []
        elif not stages:
            errors.append(f"{op} before any FROM")
        last.append((op, rest))
        if op == "ADD":
            errors.append("ADD (use COPY; nothing may be fetched but Debian packages)")
        if op == "RUN":
            for tool in ("curl", "wget", "pip", "git clone", "npm", "go install", "cargo"):
                if re.search(rf"(^|[\s;&|(]){re.escape(tool)}(\s|$)", rest):
                    errors.append(f"RUN uses {tool}: only apt-get may fetch (Debian's packages)")
        if op == "COPY":
            m = re.search(r"--from=(\S+)", rest)
            if m and m.group(1) not in stages[:-1]:
                errors.append(f"COPY --from={m.group(1)}: no earlier stage of that name")
    final = dict((op, rest) for op, rest in last)
    try:
        entry = json.loads(final.get("ENTRYPOINT", "null"))
    except json.JSONDecodeError:
        entry = None
    if not (isinstance(entry, list) and entry and entry[0].endswith("/tunefarm")):
        errors.append(f"final stage's ENTRYPOINT is {final.get('ENTRYPOINT')!r}, not [\".../tunefarm\"]")
    if not re.match(rf"{run_as}(:|$)", final.get("USER", "")):
        errors.append(f"final stage runs as {final.get('USER')!r}, manifests as {run_as}")
    copies = " ".join(rest for op, rest in last if op == "COPY")
    for binary in ("tunefarm", "tunefarm_sandbox"):
        if not re.search(rf"/{binary}(\s|$)", copies):
            errors.append(f"final stage does not copy {binary}")
    if len(stages) < 2:
        errors.append("not multi-stage (a build stage and a runtime stage)")
    return errors


run_as = {pod_spec(d).get("securityContext", {}).get("runAsUser")
          for d in variants["plaintext"] if d["kind"] in WORKLOAD_KINDS}
containerfile = open(os.path.join(K8S, "Containerfile")).read()
report("Containerfile: debian:12 stages, apt only, entrypoint tunefarm, user of the manifests",
       containerfile_errors(containerfile, run_as.pop() if len(run_as) == 1 else run_as))

p = run([os.path.join(K8S, "runtime_packages.sh"), TUNEFARM, SANDBOX])
errors = [] if p.returncode == 0 else [f"runtime_packages.sh failed: {p.stderr.strip()}"]
packages = p.stdout.split()
for pkg in packages:
    q = run(["dpkg-query", "-W", "-f=${Status}", pkg])
    if "install ok installed" not in q.stdout:
        errors.append(f"{pkg} is not an installed package")
for must in ("libgrpc++1.51", "libprotobuf32", "libllvm16", "libsqlite3-0", "libseccomp2"):
    if p.returncode == 0 and must not in packages:
        errors.append(f"{must} missing from {packages}")
if p.returncode == 0:
    print(f"runtime packages: {' '.join(packages)}")
report("runtime_packages.sh maps the built binaries' libraries to installed Debian packages", errors)

# The runtime stage's apt-get install, simulated on a system with nothing installed, from the
# apt lists on this machine (offline); skipped, and said, where there are none.
policy = run(["apt-cache", "policy", "libc6"]).stdout
if packages and re.search(r"Candidate: (?!\(none\))", policy):
    empty = os.path.join(TMP, "empty-dpkg-status")
    open(empty, "w").close()
    p = run(["apt-get", "install", "-s", "--no-install-recommends",
             f"-o=Dir::State::status={empty}"] + packages)
    made = re.search(r"(\d+) newly installed", p.stdout)
    report("the runtime packages install from Debian's archive on a bare system (apt-get -s)",
           [] if p.returncode == 0 and made else
           [f"apt-get -s install fails: {(p.stderr or p.stdout).strip()[-600:]}"])
else:
    print("note: no apt package lists here: the runtime stage's install was not simulated")


# ---------------------------------------------------------------- every check can fail
def find(docs, kind, sub):
    for d in docs:
        if d["kind"] == kind:
            for c in containers_of(d):
                if c.get("args", [None])[0] == sub:
                    return d, c
    raise KeyError((kind, sub))


def set_arg(c, flag, value):
    c["args"] = [a for a in c["args"] if not a.startswith(f"--{flag}=")] + [f"--{flag}={value}"]


def m_drop_limits(docs):
    find(docs, "DaemonSet", "server")[1]["resources"].pop("limits")


def m_drop_requests_memory(docs):
    find(docs, "Deployment", "tracker")[1]["resources"]["requests"].pop("memory")


def m_request_above_limit(docs):
    find(docs, "StatefulSet", "serve")[1]["resources"]["requests"]["cpu"] = "64"


def m_tracker_probe_port(docs):
    find(docs, "Deployment", "tracker")[1]["readinessProbe"]["grpc"]["port"] = 9191


def m_tracker_listens_elsewhere(docs):
    set_arg(find(docs, "Deployment", "tracker")[1], "port", "9290")


def m_serve_no_liveness(docs):
    find(docs, "StatefulSet", "serve")[1].pop("livenessProbe")


def m_serve_http_probe(docs):
    find(docs, "StatefulSet", "serve")[1]["readinessProbe"] = {"httpGet": {"port": 9191}}


def m_gpu_no_gpu(docs):
    find(docs, "Deployment", "server")[1]["resources"]["limits"].pop("nvidia.com/gpu")
    find(docs, "Deployment", "server")[1]["resources"]["requests"].pop("nvidia.com/gpu")


def m_daemonset_no_selector(docs):
    pod_spec(find(docs, "DaemonSet", "server")[0]).pop("nodeSelector")


def m_daemonset_other_key(docs):
    set_arg(find(docs, "DaemonSet", "server")[1], "key", "cpu-other")


def m_db_off_claim(docs):
    set_arg(find(docs, "StatefulSet", "serve")[1], "db", "/tmp/tuning.db")


def m_no_claims(docs):
    find(docs, "StatefulSet", "serve")[0]["spec"].pop("volumeClaimTemplates")


def m_unknown_flag(docs):
    find(docs, "DaemonSet", "server")[1]["args"].append("--token_file=/etc/tunefarm/token")


def m_flag_of_other_subcommand(docs):
    find(docs, "Deployment", "tracker")[1]["args"].append("--db=/var/lib/tunefarm/t.db")


def m_flag_not_a_number(docs):
    set_arg(find(docs, "DaemonSet", "server")[1], "memory_limit_mb", "lots")


def m_unknown_env(docs):
    find(docs, "DaemonSet", "server")[1]["env"].append({"name": "TUNEFARM_TOKEN_FILE", "value": "x"})


def m_unknown_secret_key(docs):
    env = find(docs, "Deployment", "tracker")[1]["env"]
    env[0]["valueFrom"]["secretKeyRef"]["key"] = "tracker-token"


def m_server_probe(docs):
    find(docs, "DaemonSet", "server")[1]["livenessProbe"] = {"tcpSocket": {"port": 9190}}


def m_privileged(docs):
    find(docs, "DaemonSet", "server")[1]["securityContext"]["privileged"] = True


def m_root(docs):
    pod_spec(find(docs, "Deployment", "tracker")[0])["securityContext"].pop("runAsNonRoot")


def m_tracker_elsewhere(docs):
    set_arg(find(docs, "StatefulSet", "serve")[1], "tracker", "tunefarm-tracker:9999")


def m_undefined_var(docs):
    find(docs, "DaemonSet", "server")[1]["env"] = [
        e for e in find(docs, "DaemonSet", "server")[1]["env"] if e["name"] != "NODE_NAME"]


def m_misspelt_field(docs):
    c = find(docs, "StatefulSet", "serve")[1]
    c["readinesProbe"] = c.pop("readinessProbe")


def m_wrong_type(docs):
    find(docs, "Deployment", "tracker")[0]["spec"]["replicas"] = "one"


def m_tls_grpc_probe(docs):
    find(docs, "Deployment", "tracker")[1]["livenessProbe"] = {"grpc": {"port": 9190}}


def m_tls_file_unmounted(docs):
    set_arg(find(docs, "DaemonSet", "server")[1], "tls_ca", "/etc/ssl/certs/ca.crt")


def m_tls_key_not_in_items(docs):
    set_arg(find(docs, "DaemonSet", "server")[1], "tls_client_key", "/etc/tunefarm/tls/tls.key")


def health_probe(docs, kind, sub, probe):
    return find(docs, kind, sub)[1][probe]["exec"]["command"]


def m_tls_tcp_probe(docs):
    find(docs, "StatefulSet", "serve")[1]["readinessProbe"] = {"tcpSocket": {"port": 9191}}


def m_tls_health_wrong_port(docs):
    cmd = health_probe(docs, "Deployment", "tracker", "readinessProbe")
    cmd[2] = "127.0.0.1:9191"


def m_tls_health_not_loopback(docs):
    cmd = health_probe(docs, "StatefulSet", "serve", "livenessProbe")
    cmd[2] = "tunefarm-tracker:9191"


def m_tls_health_other_binary(docs):
    health_probe(docs, "Deployment", "tracker", "livenessProbe")[0] = "/usr/bin/tunefarm"


def m_tls_health_other_subcommand(docs):
    health_probe(docs, "Deployment", "tracker", "livenessProbe")[1] = "status"


def m_tls_health_no_ca(docs):
    cmd = health_probe(docs, "StatefulSet", "serve", "readinessProbe")
    cmd[:] = [a for a in cmd if not a.startswith("--tls_ca")]


def m_tls_health_ca_unmounted(docs):
    cmd = health_probe(docs, "Deployment", "tracker", "readinessProbe")
    cmd[:] = [a if not a.startswith("--tls_ca") else "--tls_ca=/etc/tunefarm/ca.crt" for a in cmd]


def m_tls_health_no_server_name(docs):
    cmd = health_probe(docs, "Deployment", "tracker", "livenessProbe")
    cmd[:] = [a for a in cmd if not a.startswith("--tls_server_name")]


def m_tls_health_other_service(docs):
    cmd = health_probe(docs, "StatefulSet", "serve", "readinessProbe")
    cmd[:] = [a if not a.startswith("--tls_server_name") else "--tls_server_name=tunefarm-tracker"
              for a in cmd]


def m_tls_health_unknown_flag(docs):
    health_probe(docs, "StatefulSet", "serve", "livenessProbe").append("--deadline_s=3")


def m_tls_health_short_timeout(docs):
    find(docs, "Deployment", "tracker")[1]["readinessProbe"]["timeoutSeconds"] = 2


def m_tls_health_on_server(docs):
    tracker = find(docs, "Deployment", "tracker")[1]
    find(docs, "DaemonSet", "server")[1]["livenessProbe"] = copy.deepcopy(tracker["livenessProbe"])


MUTATIONS = [  # (variant, description, mutate, what the failure must say)
    ("plaintext", "a container without limits", m_drop_limits, "no limits.cpu"),
    ("plaintext", "no memory request", m_drop_requests_memory, "no requests.memory"),
    ("plaintext", "a request above its limit", m_request_above_limit, "above limits.cpu"),
    ("plaintext", "tracker probe on another port", m_tracker_probe_port, "asks port 9191"),
    ("plaintext", "tracker listening elsewhere", m_tracker_listens_elsewhere, "not a containerPort"),
    ("plaintext", "job service without liveness", m_serve_no_liveness, "livenessProbe is not a grpc"),
    ("plaintext", "job service with an HTTP probe", m_serve_http_probe, "readinessProbe is not a grpc"),
    ("plaintext", "GPU server without a GPU", m_gpu_no_gpu, "limits no nvidia.com/gpu"),
    ("plaintext", "DaemonSet without nodeSelector", m_daemonset_no_selector, "does not carry"),
    ("plaintext", "DaemonSet key differs from label", m_daemonset_other_key, "does not carry"),
    ("plaintext", "tuning log off the claim", m_db_off_claim, "not on a volumeClaimTemplate"),
    ("plaintext", "no volumeClaimTemplates", m_no_claims, "mount tuning-log has no volume"),
    ("plaintext", "a flag tunefarm lacks", m_unknown_flag, "--token_file is not a flag"),
    ("plaintext", "a flag of another subcommand", m_flag_of_other_subcommand, "--db is not a flag of `tunefarm tracker`"),
    ("plaintext", "a flag value of the wrong type", m_flag_not_a_number, "not a number"),
    ("plaintext", "an env var tunefarm does not read", m_unknown_env, "TUNEFARM_TOKEN_FILE is not read"),
    ("plaintext", "a secret key no example defines", m_unknown_secret_key, "which no example Secret defines"),
    ("plaintext", "a probe on a device server", m_server_probe, "listens on none"),
    ("plaintext", "a privileged container", m_privileged, "privileged"),
    ("plaintext", "a pod that may run as root", m_root, "runAsNonRoot"),
    ("plaintext", "job service dialling no tracker", m_tracker_elsewhere, "has no port 9999"),
    ("plaintext", "$(VAR) its env lacks", m_undefined_var, "$(NODE_NAME)"),
    ("plaintext", "a misspelt field", m_misspelt_field, "readinesProbe is unknown"),
    ("plaintext", "a field of the wrong type", m_wrong_type, "cannot decode"),
    ("tls", "a gRPC probe against TLS", m_tls_grpc_probe, "cannot speak TLS"),
    ("tls", "a TCP probe against TLS (blind to a drain)", m_tls_tcp_probe, "readinessProbe is not an exec probe"),
    ("tls", "a health probe on another port", m_tls_health_wrong_port, "asks port 9191, but it listens on 9190"),
    ("tls", "a health probe dialling off the pod", m_tls_health_not_loopback, "not the pod's own loopback"),
    ("tls", "a health probe of a binary not in the image", m_tls_health_other_binary, "livenessProbe is not an exec probe"),
    ("tls", "an exec probe of another subcommand", m_tls_health_other_subcommand, "livenessProbe is not an exec probe"),
    ("tls", "a health probe without --tls_ca", m_tls_health_no_ca, "no --tls_ca"),
    ("tls", "a health probe's CA outside the Secret", m_tls_health_ca_unmounted, "--tls_ca=/etc/tunefarm/ca.crt is not a key of a mounted Secret"),
    ("tls", "a health probe without --tls_server_name", m_tls_health_no_server_name, "no --tls_server_name"),
    ("tls", "a health probe naming another Service", m_tls_health_other_service, "--tls_server_name=tunefarm-tracker is not a Service of this pod"),
    ("tls", "a flag `tunefarm health` lacks", m_tls_health_unknown_flag, "--deadline_s is not a flag of `tunefarm health`"),
    ("tls", "a probe timeout within the command's deadline", m_tls_health_short_timeout, "not above the command's own"),
    ("tls", "a health probe on a device server", m_tls_health_on_server, "listens on none"),
    ("tls", "a TLS file outside the mounted Secret", m_tls_file_unmounted, "not a key of a mounted Secret"),
    ("tls", "a key the Secret's items leave out", m_tls_key_not_in_items, "not a key of a mounted Secret"),
]
errors = []
for variant, what, mutate, expect in MUTATIONS:
    docs = copy.deepcopy(variants[variant])
    try:
        mutate(docs)
    except (KeyError, IndexError, TypeError) as e:
        errors.append(f"{variant}, {what}: the manifests lack what it breaks ({e!r})")
        continue
    found = check(docs, SECRETS)
    if expect in ("readinesProbe is unknown", "cannot decode"):
        found += typed_check(docs, "mutant")[0]
    if not any(expect in e for e in found):
        errors.append(f"{variant}, {what}: not refused with '{expect}' (got {found[:3]})")
bad = containerfile.replace("FROM debian:12\n", "FROM ubuntu:24.04\n", 1)
for what, text, expect in [
        ("a non-Debian stage", bad, "not debian:12"),
        ("a download", containerfile.replace("RUN apt-get update", "RUN curl -O https://x && apt-get update"), "uses curl"),
        ("another entrypoint", containerfile.replace('ENTRYPOINT ["/usr/local/bin/tunefarm"]', 'ENTRYPOINT ["/bin/sh"]'), "ENTRYPOINT"),
        ("another user", containerfile.replace("USER 10001:10001", "USER root"), "runs as"),
        ("a missing stage", containerfile.replace("COPY --from=build /out/tunefarm", "COPY --from=builder /out/tunefarm"), "no earlier stage")]:
    found = containerfile_errors(text, 10001)
    if text == containerfile or not any(expect in e for e in found):
        errors.append(f"Containerfile, {what}: not refused with '{expect}' (got {found[:3]})")
report(f"each check refuses a broken copy ({len(MUTATIONS) + 5} mutations)", errors)

print("k8s manifests:", "FAILED" if failures else "all checks passed")
sys.exit(1 if failures else 0)
PY
