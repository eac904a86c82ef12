#!/usr/bin/env bash
# Builds the local Kubernetes control plane binaries (hack/cluster/build.sh):
# kube-apiserver/-controller-manager/-scheduler/kubectl/etcd (one multi-call
# binary), kwok and helm, pinned in hack/cluster/versions.env, into the cache
# ${HTTPD24_CACHE:-$HOME/.cache/httpd24}. A no-op when the cache has them.
# Needs Go >= 1.26 on PATH and the Go module proxy. Prints the bin dir last.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
start=$(date +%s)
echo "== install-cluster: hack/cluster/build.sh" >&2
bin="$("$repo/hack/cluster/build.sh" | tail -n 1)"
secs=$(( $(date +%s) - start ))
echo "== install-cluster: done in ${secs}s ($((secs / 60))m$((secs % 60))s); binaries in $bin" >&2
"$bin/kubectl" version --client >&2
echo "$bin"
