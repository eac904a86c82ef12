#!/usr/bin/env bash
# A real local Kubernetes control plane without a container engine:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok
# (fake nodes), all on 127.0.0.1, as child processes with pid files.
#
#   hack/cluster/cluster.sh up       # build (cached) + start + wait until ready
#   hack/cluster/cluster.sh status   # one line per component; exit 1 unless all run
#   hack/cluster/cluster.sh env      # eval "$(hack/cluster/cluster.sh env)"
#   hack/cluster/cluster.sh down     # stop every process by its pid, wait for it
#
# Environment:
#   HTTPD24_CLUSTER_DIR  state dir (certs, kubeconfigs, etcd data, logs, pids);
#                        default /tmp/httpd24-cluster
#   HTTPD24_CLUSTER_BIN  use these binaries instead of calling build.sh
#   HTTPD24_CACHE        build cache root (see build.sh)
#   HTTPD24_CLUSTER_NODES number of kwok nodes (default 2)
#   HTTPD24_CLUSTER_TIMEOUT seconds to wait for readiness (default 90)
#
# Files in the state dir: ca.crt/ca.key (local CA: apiserver serving cert,
# client certs; tests sign webhook certs with it), admin.kubeconfig
# (user "admin", group system:masters), logs/<component>.log,
# pids/<component>.pid ("<pid> <starttime>", so a recycled pid is never killed).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
D="${HTTPD24_CLUSTER_DIR:-/tmp/httpd24-cluster}"
NODES="${HTTPD24_CLUSTER_NODES:-2}"
TIMEOUT="${HTTPD24_CLUSTER_TIMEOUT:-90}"
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

# Nothing of ours may go through a proxy (the apiserver calls webhooks on 127.0.0.1).
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY || true
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

say() { echo "cluster.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# ---------------------------------------------------------------- processes
starttime() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null || true; }

# pid of a running component, or nothing
running_pid() {
  local f="$D/pids/$1.pid" pid st
  [ -f "$f" ] || return 0
  read -r pid st < "$f" || return 0
  [ -n "${pid:-}" ] && [ -n "${st:-}" ] && [ -d "/proc/$pid" ] || return 0
  [ "$(starttime "$pid")" = "$st" ] || return 0
  # a zombie is not running
  [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != "Z" ] || return 0
  echo "$pid"
}

start() { # start <name> <binary> args...
  local name=$1; shift
  local log="$D/logs/$name.log"
  # setsid: own session, so a terminal's Ctrl-C reaches only `down`'s logic.
  # In a non-interactive shell the background child is not a group leader,
  # so setsid execs in place and $! is the component's own pid.
  setsid "$@" >"$log" 2>&1 </dev/null &
  local pid=$!
  local st=""
  for _ in 1 2 3 4 5 6 7 8 9 10; do st=$(starttime "$pid"); [ -n "$st" ] && break; sleep 0.05; done
  echo "$pid $st" > "$D/pids/$name.pid"
}

fail() { # fail <name> <why>
  local name=$1 why=$2 log="$D/logs/$1.log"
  say "ERROR: $name $why"
  say "log of $name: $log"
  if [ -f "$log" ]; then
    say "---- last 25 lines of $log ----"
    tail -n 25 "$log" >&2 || true
    say "----"
  fi
  say "stopping the other components"
  do_down >/dev/null 2>&1 || true
  say "ERROR: $name $why (log: $log)"
  exit 1
}

# wait_for <name> <deadline-epoch> <command...>: poll until command succeeds,
# fail early when the component's process has exited.
wait_for() {
  local name=$1 deadline=$2; shift 2
  while :; do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [ -z "$(running_pid "$name")" ]; then fail "$name" "exited during startup"; fi
    if [ "$(date +%s)" -ge "$deadline" ]; then fail "$name" "not ready after ${TIMEOUT}s"; fi
    sleep 0.2
  done
}

free_ports() { # free_ports N -> N distinct free TCP ports on 127.0.0.1
  python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# ---------------------------------------------------------------- certificates
gen_certs() {
  local c="$D/certs"
  mkdir -p "$c"
  ( cd "$c"
    openssl ecparam -name prime256v1 -genkey -noout -out ca.key 2>/dev/null
    openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/CN=httpd24-local-ca" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
      -out ca.crt 2>/dev/null
    # service-account token signing key pair
    openssl ecparam -name prime256v1 -genkey -noout -out sa.key.ec 2>/dev/null
    openssl pkcs8 -topk8 -nocrypt -in sa.key.ec -out sa.key
    openssl ec -in sa.key -pubout -out sa.pub 2>/dev/null
    rm -f sa.key.ec
    leaf() { # leaf <name> <subject> <extendedKeyUsage> [subjectAltName]
      openssl ecparam -name prime256v1 -genkey -noout -out "$1.key" 2>/dev/null
      openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null
      { echo "basicConstraints=critical,CA:FALSE"
        echo "keyUsage=critical,digitalSignature,keyEncipherment"
        echo "extendedKeyUsage=$3"
        [ -z "${4:-}" ] || echo "subjectAltName=$4"; } > "$1.ext"
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -sha256 -days 3650 \
        -extfile "$1.ext" -out "$1.crt" 2>/dev/null
      rm -f "$1.csr" "$1.ext"
    }
    leaf apiserver "/CN=kube-apiserver" serverAuth \
      "IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
    leaf admin "/O=system:masters/CN=admin" clientAuth
    leaf controller-manager "/CN=system:kube-controller-manager" clientAuth
    leaf scheduler "/CN=system:kube-scheduler" clientAuth
    leaf kwok "/O=system:masters/CN=kwok" clientAuth
    leaf apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
    chmod 600 ./*.key
  )
}

kubeconfig() { # kubeconfig <file> <user> <cert-basename>
  local c="$D/certs"
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: httpd24-local
  cluster:
    server: https://127.0.0.1:${APISERVER_PORT}
    certificate-authority-data: $(base64 -w0 < "$c/ca.crt")
contexts:
- name: httpd24-local
  context:
    cluster: httpd24-local
    user: $2
    namespace: default
current-context: httpd24-local
users:
- name: $2
  user:
    client-certificate-data: $(base64 -w0 < "$c/$3.crt")
    client-key-data: $(base64 -w0 < "$c/$3.key")
EOF
  chmod 600 "$1"
}

nodes_yaml() {
  local i
  for ((i = 0; i < NODES; i++)); do
    cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/hostname: kwok-node-$i
    kubernetes.io/os: linux
    kubernetes.io/role: agent
    node-role.kubernetes.io/agent: ""
    type: kwok
# No taints: ordinary Deployments schedule here without tolerations.
spec: {}
status:
  allocatable:
    cpu: "32"
    memory: 256Gi
    pods: "110"
  capacity:
    cpu: "32"
    memory: 256Gi
    pods: "110"
EOF
  done
}

# ---------------------------------------------------------------- commands
bin_dir() {
  if [ -n "${HTTPD24_CLUSTER_BIN:-}" ]; then echo "$HTTPD24_CLUSTER_BIN"; return; fi
  "$here/build.sh" | tail -n 1
}

any_running() {
  local n
  for n in "${COMPONENTS[@]}"; do [ -z "$(running_pid "$n")" ] || return 0; done
  return 1
}

do_up() {
  if any_running; then
    if [ -n "$(running_pid kube-apiserver)" ] && [ -f "$D/admin.kubeconfig" ]; then
      say "already up (state dir $D); nothing to do"
      echo "export KUBECONFIG=$D/admin.kubeconfig"
      return 0
    fi
    say "a partial cluster is running in $D; stopping it first"
    do_down
  fi
  local B t0 deadline
  B="$(bin_dir)"
  [ -x "$B/kube-apiserver" ] || die "no binaries in $B (run hack/cluster/build.sh)"
  t0=$(date +%s)
  deadline=$((t0 + TIMEOUT))
  rm -rf "$D"
  mkdir -p "$D/logs" "$D/pids" "$D/etcd"
  echo "$B" > "$D/bin_dir"
  gen_certs
  local ports
  read -r ETCD_PORT ETCD_PEER_PORT APISERVER_PORT KWOK_PORT <<<"$(free_ports 4)"
  cat > "$D/ports.env" <<EOF
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
APISERVER_PORT=$APISERVER_PORT
KWOK_PORT=$KWOK_PORT
EOF
  local c="$D/certs"
  kubeconfig "$D/admin.kubeconfig" admin admin
  kubeconfig "$D/controller-manager.kubeconfig" system:kube-controller-manager controller-manager
  kubeconfig "$D/scheduler.kubeconfig" system:kube-scheduler scheduler
  kubeconfig "$D/kwok.kubeconfig" kwok kwok

  say "starting etcd on 127.0.0.1:$ETCD_PORT"
  start etcd "$B/etcd" --name=default --data-dir="$D/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="default=http://127.0.0.1:$ETCD_PEER_PORT" \
    --unsafe-no-fsync=true --log-level=warn
  wait_for etcd "$deadline" curl -fsS "http://127.0.0.1:$ETCD_PORT/health"

  say "starting kube-apiserver on https://127.0.0.1:$APISERVER_PORT"
  start kube-apiserver "$B/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
    --tls-cert-file="$c/apiserver.crt" --tls-private-key-file="$c/apiserver.key" \
    --client-ca-file="$c/ca.crt" \
    --kubelet-client-certificate="$c/apiserver-kubelet-client.crt" --kubelet-client-key="$c/apiserver-kubelet-client.key" \
    --authorization-mode=Node,RBAC \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$c/sa.pub" --service-account-signing-key-file="$c/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 \
    --endpoint-reconciler-type=none \
    --allow-privileged=true \
    --profiling=false
  wait_for kube-apiserver "$deadline" curl -fsS --cacert "$c/ca.crt" --cert "$c/admin.crt" --key "$c/admin.key" \
    "https://127.0.0.1:$APISERVER_PORT/readyz"

  say "starting kube-controller-manager, kube-scheduler, kwok"
  start kube-controller-manager "$B/kube-controller-manager" \
    --kubeconfig="$D/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$D/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$D/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port=0 \
    --leader-elect=false \
    --use-service-account-credentials=true \
    --root-ca-file="$c/ca.crt" \
    --service-account-private-key-file="$c/sa.key" \
    --cluster-signing-cert-file="$c/ca.crt" --cluster-signing-key-file="$c/ca.key" \
    --controllers='*' \
    --kube-api-qps=100 --kube-api-burst=200 \
    --profiling=false
  start kube-scheduler "$B/kube-scheduler" \
    --kubeconfig="$D/scheduler.kubeconfig" \
    --authentication-kubeconfig="$D/scheduler.kubeconfig" \
    --authorization-kubeconfig="$D/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port=0 \
    --leader-elect=false \
    --profiling=false
  start kwok "$B/kwok" \
    --kubeconfig="$D/kwok.kubeconfig" \
    --config="$here/kwok-stages.yaml" \
    --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --manage-nodes-with-label-selector= \
    --manage-single-node= \
    --cidr=10.244.0.0/16 \
    --node-ip=10.0.0.1 \
    --node-lease-duration-seconds=40 \
    --server-address="127.0.0.1:$KWOK_PORT"

  local K=("$B/kubectl" --kubeconfig="$D/admin.kubeconfig")
  nodes_yaml > "$D/nodes.yaml"
  "${K[@]}" apply -f "$D/nodes.yaml" >/dev/null || fail kube-apiserver "refused the kwok Node objects"
  # Readiness of the rest: kwok marks the nodes Ready; the controller manager
  # creates the default ServiceAccount; the scheduler answers on its lease-less
  # path only through scheduling, so it is checked by a running pid here and
  # by the smoke tests' rollouts.
  local i
  for ((i = 0; i < NODES; i++)); do
    wait_for kwok "$deadline" sh -c "'$B/kubectl' --kubeconfig='$D/admin.kubeconfig' get node kwok-node-$i -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
  done
  wait_for kube-controller-manager "$deadline" "${K[@]}" get serviceaccount default -n default
  [ -n "$(running_pid kube-scheduler)" ] || fail kube-scheduler "exited during startup"
  say "up in $(( $(date +%s) - t0 ))s: $NODES kwok nodes; state dir $D"
  echo "export KUBECONFIG=$D/admin.kubeconfig"
}

do_down() {
  local n pid i stopped=0 left=()
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    n=${COMPONENTS[$i]}
    pid=$(running_pid "$n")
    if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; left+=("$n:$pid"); fi
  done
  # wait up to 15 s for all of them, then SIGKILL the rest
  local deadline=$(( $(date +%s) + 15 )) e
  for e in "${left[@]}"; do
    n=${e%%:*}; pid=${e##*:}
    while [ -n "$(running_pid "$n")" ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.1; done
    if [ -n "$(running_pid "$n")" ]; then
      say "$n (pid $pid) did not stop on SIGTERM; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      while [ -n "$(running_pid "$n")" ]; do sleep 0.05; done
    fi
    stopped=$((stopped + 1))
  done
  rm -f "$D"/pids/*.pid 2>/dev/null || true
  say "down: stopped $stopped process(es); state dir $D kept (logs in $D/logs)"
}

do_status() {
  local n pid ok=0
  [ -d "$D" ] || { say "no cluster state in $D"; return 1; }
  for n in "${COMPONENTS[@]}"; do
    pid=$(running_pid "$n")
    if [ -n "$pid" ]; then
      printf '%-24s running  pid %-8s log %s\n' "$n" "$pid" "$D/logs/$n.log"
    else
      printf '%-24s stopped  %-12s log %s\n' "$n" "" "$D/logs/$n.log"; ok=1
    fi
  done
  if [ -f "$D/ports.env" ]; then . "$D/ports.env"; echo "apiserver https://127.0.0.1:$APISERVER_PORT kubeconfig $D/admin.kubeconfig"; fi
  return $ok
}

do_env() {
  [ -f "$D/admin.kubeconfig" ] || die "no cluster in $D (run: $0 up)"
  echo "export KUBECONFIG=$D/admin.kubeconfig"
  [ -f "$D/bin_dir" ] && echo "export PATH=$(cat "$D/bin_dir"):\$PATH"
  return 0
}

case "${1:-}" in
  up) do_up ;;
  down) do_down ;;
  status) do_status ;;
  env) do_env ;;
  *) echo "usage: $0 up|down|status|env" >&2; exit 2 ;;
esac
