#!/usr/bin/env bash
# Several "hosts" on one machine: each rank in its own network namespace (and hostname),
# joined by veth pairs on a bridge, talking TCP over 10.213.91.0/24. mpirun runs in a fourth
# namespace and starts Open MPI's daemons on the others through a fake rsh agent (no sshd).
# The weights must match one process exactly, and the share table must name the three hosts.
#
# Needs root and `ip netns`; otherwise exits 77 saying why. Every namespace it made is
# deleted on exit, failure included (the veths go with them).
#
# PONGRL_NETNS_BENCH=1 also runs `pongrl bench cluster` across the hosts, once unshaped and
# once with every host's link shaped to 1 Gbit/s (tc tbf), for batch sizes 10, 20, 40 per rank
# (PONGRL_NETNS_BATCHES="10 100 400" sets others).
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${PONGRL_BIN:-$PWD/build/pongrl}
skip() { echo "skip: $*"; exit 77; }
command -v mpirun >/dev/null || skip "mpirun not installed (apt-get install openmpi-bin)"
[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "ip (iproute2) not installed"
command -v unshare >/dev/null || skip "unshare not installed"
P=prl-$$                                   # unique prefix: parallel runs do not collide
NET=10.213.91
HOSTS=(1 2 3)
tmp=$(mktemp -d /tmp/pongrl-netns-XXXXXX)
cleanup() {
    for n in "$P-h0" "${HOSTS[@]/#/$P-h}" "$P-sw"; do ip netns del "$n" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
ip netns add "$P-sw" 2>/dev/null || skip "ip netns add failed (no CAP_SYS_ADMIN or no netns support)"
ip -n "$P-sw" link add br0 type bridge && ip -n "$P-sw" link set br0 up || { echo "FAIL: bridge"; exit 1; }
for i in 0 "${HOSTS[@]}"; do
    ip netns add "$P-h$i" || { echo "FAIL: netns $P-h$i"; exit 1; }
    ip link add "$P-v$i" type veth peer name eth0 netns "$P-h$i" || { echo "FAIL: veth"; exit 1; }
    ip link set "$P-v$i" netns "$P-sw"
    ip -n "$P-sw" link set "$P-v$i" master br0
    ip -n "$P-sw" link set "$P-v$i" up
    ip -n "$P-h$i" addr add "$NET.1$i/24" dev eth0
    ip -n "$P-h$i" link set eth0 up
    ip -n "$P-h$i" link set lo up
done
# the fake rsh agent: "nsrsh <host> <command...>" runs the command in that host's namespace
cat >"$tmp/nsrsh" <<AGENT
#!/bin/sh
host=\$1; shift
i=\${host##*.1}
exec ip netns exec "$P-h\$i" unshare --uts /bin/sh -c "hostname h\$i; \$*"
AGENT
chmod +x "$tmp/nsrsh"
hostlist=$(printf "$NET.1%s:1," "${HOSTS[@]}"); hostlist=${hostlist%,}
run_mpi() {   # arguments: the pongrl command line; runs one rank on each of h1..h3
    ip netns exec "$P-h0" unshare --uts sh -c 'hostname h0; exec "$@"' sh \
        timeout 120 mpirun --allow-run-as-root -np ${#HOSTS[@]} --host "$hostlist" --oversubscribe \
        --mca plm_rsh_agent "$tmp/nsrsh" --mca oob_tcp_if_include "$NET.0/24" \
        --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include "$NET.0/24" "$@"
}

ARGS=(--iterations 3 --batch-size 6 --workers 1 --seed 5)
ref=$(timeout 60 "$BIN" train "${ARGS[@]}" --run-dir "$tmp/r1" 2>&1 | grep -o 'weights crc32 [0-9a-f]*')
[ -n "$ref" ] || { echo "FAIL: single-process run"; exit 1; }
out=$(run_mpi "$BIN" train "${ARGS[@]}" --run-dir "$tmp/r3" 2>&1); rc=$?
echo "$out" | grep -v '^Batch'
got=$(grep -o 'weights crc32 [0-9a-f]*' <<<"$out")
echo "1 process: $ref; 3 hosts: ${got:-none} (rc $rc)"
[ $rc -eq 0 ] && [ "$got" = "$ref" ] || { echo "$out"; echo "FAIL: 3 hosts over TCP differ from 1 process"; exit 1; }
for h in h1 h2 h3; do
    grep -qE "^ +[0-9]+ +$h " <<<"$out" || { echo "FAIL: host $h missing from the share table"; exit 1; }
done

if [ "${PONGRL_NETNS_BENCH:-0}" = 1 ]; then
    for shaped in no 1gbit; do
        if [ $shaped = 1gbit ]; then
            for i in 0 "${HOSTS[@]}"; do
                ip netns exec "$P-h$i" tc qdisc add dev eth0 root tbf rate 1gbit burst 128kb latency 50ms
            done
        fi
        for b in ${PONGRL_NETNS_BATCHES:-10 20 40}; do
            echo "== netns, 3 hosts x 1 rank, link $shaped, batch $b per rank"
            run_mpi "$BIN" bench cluster --batch-per-rank $b --iterations 4 2>&1 | grep -E '^[a-z_]+: '
        done
    done
fi
echo "PASS: 3 network-namespace hosts over TCP give $ref, the same as 1 process"
