#!/usr/bin/env bash
# Builds the pinned local control plane (see versions.env) into a cache
# outside the repository and prints the bin directory on stdout (last line).
#
#   hack/cluster/build.sh            # build if missing, print bin dir
#   HTTPD24_CACHE=/some/dir hack/cluster/build.sh
#
# Cache layout: ${HTTPD24_CACHE:-$HOME/.cache/httpd24}/k8s-<v>-etcd-<v>-kwok-<v>-helm-<v>/bin/
#   k8s (multi-call), kube-apiserver, kube-controller-manager, kube-scheduler,
#   kubectl, etcd (symlinks to k8s), kwok, helm, BUILD_INFO
# A present, complete bin dir (marker file .complete) is reused as is; the
# build goes to a temporary dir and is renamed into place at the end, so an
# interrupted build never leaves a half-filled cache. Concurrent callers are
# serialised with flock.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/versions.env"

cache_root="${HTTPD24_CACHE:-$HOME/.cache/httpd24}"
key="k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}-kwok-${KWOK_VERSION}-helm-${HELM_VERSION}"
dest="$cache_root/$key"
bin="$dest/bin"

log() { echo "build.sh: $*" >&2; }

if [ -f "$bin/.complete" ]; then
  log "cached: $bin ($(cat "$bin/BUILD_INFO" 2>/dev/null | grep '^build_seconds' || true))"
  echo "$bin"
  exit 0
fi

command -v go >/dev/null || { log "go (>= 1.26) not found in PATH"; exit 1; }
mkdir -p "$cache_root"
exec 9>"$cache_root/.$key.lock"
if ! flock -n 9; then
  log "another build.sh holds $cache_root/.$key.lock; waiting for it"
  flock 9
fi
if [ -f "$bin/.complete" ]; then   # someone else built it while we waited
  log "cached: $bin"
  echo "$bin"
  exit 0
fi

tmp="$dest/bin.tmp.$$"
rm -rf "$dest"/bin.tmp.* "$bin"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

k8s_minor="${K8S_VERSION#v1.}"; k8s_minor="${k8s_minor%%.*}"
ldflags="-s -w"
ldflags+=" -X k8s.io/component-base/version.gitVersion=${K8S_VERSION}"
ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
ldflags+=" -X k8s.io/component-base/version.gitMinor=${k8s_minor}"
ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
ldflags+=" -X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z"
ldflags+=" -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}"
ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"

log "building $key with $(go version | awk '{print $3}') on $(nproc) cores into $tmp"
log "(cold: downloads modules and compiles ~3000 packages; expect 15-30 min on 2 cores)"
start=$(date +%s)
cd "$here"
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0
# One go build for all three main packages: one shared action graph, the
# links run in parallel; -X flags naming absent symbols are ignored.
go build -trimpath -ldflags="$ldflags" -o "$tmp/" \
  ./cmd/k8s sigs.k8s.io/kwok/cmd/kwok helm.sh/helm/v3/cmd/helm
for n in kube-apiserver kube-controller-manager kube-scheduler kubectl etcd; do
  ln -s k8s "$tmp/$n"
done
secs=$(( $(date +%s) - start ))
{
  echo "key=$key"
  echo "go=$(go version | awk '{print $3}')"
  echo "build_seconds=$secs"
  echo "built_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cores=$(nproc)"
} > "$tmp/BUILD_INFO"
# smoke: every entry point answers
"$tmp/kubectl" version --client >/dev/null
"$tmp/kube-apiserver" --version >/dev/null
"$tmp/etcd" --version >/dev/null
"$tmp/kwok" --help >/dev/null 2>&1
"$tmp/helm" version >/dev/null
touch "$tmp/.complete"
mv "$tmp" "$bin"
trap - EXIT
log "first build of $key took ${secs}s ($((secs / 60))m$((secs % 60))s)"
echo "$bin"
