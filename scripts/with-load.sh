#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/with-load.sh CMD...: run CMD beside a bounded CPU hog on the
# host, as a busy machine would have it. The hog is stress-ng:
#   LOAD_CPUS     workers (default: every CPU, nproc)
#   LOAD_PCT      each worker's load in percent (default 100)
#   LOAD_TIMEOUT  the hog's own limit in seconds (default 10800); it is
#                 stopped as soon as CMD ends
# The hog must still be running when CMD ends, or the run was not under
# load and fails. Prints the hog's bogo-ops and CMD's time; exits with
# CMD's status.
set -uo pipefail

[ $# -gt 0 ] || { echo "usage: with-load.sh CMD..." >&2; exit 2; }
command -v stress-ng >/dev/null || { echo "with-load: stress-ng missing (make deps)" >&2; exit 2; }
CPUS=${LOAD_CPUS:-$(nproc)}
PCT=${LOAD_PCT:-100}
LIMIT=${LOAD_TIMEOUT:-10800}
log=$(mktemp /tmp/with-load.XXXXXX)

stress-ng --cpu "$CPUS" --cpu-load "$PCT" --timeout "${LIMIT}s" \
	--metrics-brief >"$log" 2>&1 &
hog=$!
trap 'kill "$hog" 2>/dev/null' EXIT
echo "with-load: stress-ng --cpu $CPUS --cpu-load $PCT (at most ${LIMIT}s) beside: $*"
start=$(date +%s)
"$@"
status=$?
secs=$(($(date +%s) - start))
if ! kill -0 "$hog" 2>/dev/null; then
	echo "with-load: the hog ended before the command did: not a run under load" >&2
	sed 's/^/with-load:   /' "$log" >&2
	status=1
else
	kill -INT "$hog"
	wait "$hog"
	awk '$4 == "cpu" { printf "with-load: hog: %s bogo ops, %.0f CPU s in %.0f s\n", $5, $7 + $8, $6 }' "$log"
fi
trap - EXIT
rm -f "$log"
echo "with-load: ${secs}s under load, exit status $status"
exit "$status"
