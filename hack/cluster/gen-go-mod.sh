#!/usr/bin/env bash
# Regenerates go.mod/go.sum of this wrapper module for the versions in
# versions.env. Needs only the Go module proxy (no GitHub):
#  - the list of staging modules comes from the proxy-served go.mod of
#    k8s.io/kubernetes@$K8S_VERSION (its "=> ./staging/src/..." replaces);
#  - every staging module is replaced by its published v0.X.Y twin.
# Run it only when bumping versions; build.sh uses the committed go.mod.
set -euo pipefail
cd "$(dirname "$0")"
. ./versions.env
export GOFLAGS=-mod=mod
minor=${K8S_VERSION#v1.}            # 36.3
staging_version="v0.${minor}"        # v0.36.3
gomod=$(go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')
mapfile -t staging < <(awk '$2=="=>" && $3 ~ /^\.\/staging\// {print $1}' "$gomod" | sort -u)
[ "${#staging[@]}" -gt 10 ] || { echo "could not read staging modules from $gomod" >&2; exit 1; }
rm -f go.mod go.sum
go mod init httpd24.local/hack/cluster >/dev/null 2>&1
go mod edit -go=1.26.0
args=()
for m in "${staging[@]}"; do
  args+=("-replace=${m}=${m}@${staging_version}")
done
go mod edit "${args[@]}"
go mod edit -require="k8s.io/kubernetes@${K8S_VERSION}" \
  -require="go.etcd.io/etcd/server/v3@${ETCD_VERSION}" \
  -require="sigs.k8s.io/kwok@${KWOK_VERSION}" \
  -require="helm.sh/helm/v3@${HELM_VERSION}"
go mod tidy
echo "staging modules replaced (${#staging[@]}): ${staging[*]}"
