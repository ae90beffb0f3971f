# shellcheck shell=bash
# shellcheck disable=SC2154 # name, tmp, start_timeout, stop_grace: set by the sourcing script
# Sourced by the peer scripts: runs one server in the background, the way
# mcpconform tears down what it starts. The server's stdin is a FIFO the
# script alone holds open for writing, so closing it (or the script dying) is
# the server's EOF; it runs in its own process group, which stop_background
# signals. Before sourcing, set: name (for messages), tmp (a scratch
# directory), start_timeout and stop_grace (seconds).

bg_pid=""
bg_stdin=""

die() {
	echo "$name: $*" >&2
	exit 2
}

# alive PID: the process has not exited (bash reaps its children as they end).
alive() { kill -0 "$1" 2>/dev/null; }

# wait_gone PID SECONDS: wait at most SECONDS for PID to exit.
wait_gone() {
	local deadline=$((SECONDS + $2))
	while alive "$1" && ((SECONDS < deadline)); do sleep 0.1; done
	! alive "$1"
}

# start_background LOG CMD…: starts CMD (which prints {"url":"…"} once it
# listens) with its stderr in LOG, and sets url; dies when no URL line comes
# within start_timeout.
start_background() {
	local log=$1
	shift
	mkfifo "$tmp/bg.stdin"
	: >"$tmp/bg.out"
	exec {bg_stdin}<>"$tmp/bg.stdin"
	set -m
	"$@" <"$tmp/bg.stdin" >"$tmp/bg.out" 2>"$log" {bg_stdin}>&- &
	bg_pid=$!
	set +m
	local deadline=$((SECONDS + start_timeout))
	while :; do
		url=$(sed -n 's/^{"url":"\(http:\/\/[^"]*\)"}$/\1/p' "$tmp/bg.out")
		[[ -z $url ]] || break
		alive "$bg_pid" || die "the server exited before printing its URL; see $log"
		((SECONDS < deadline)) || die "no URL line from the server within ${start_timeout}s (stdout: $(head -c 200 "$tmp/bg.out"))"
		sleep 0.1
	done
}

# stop_background: EOF on the server's stdin, then SIGTERM to its process
# group, then SIGKILL; each step waits at most stop_grace seconds.
stop_background() {
	[[ -n $bg_pid ]] || return 0
	if [[ -n $bg_stdin ]]; then
		exec {bg_stdin}>&-
		bg_stdin=""
	fi
	if ! wait_gone "$bg_pid" "$stop_grace"; then
		echo "$name: the server ignored EOF on stdin for ${stop_grace}s; sending SIGTERM" >&2
		kill -TERM -- "-$bg_pid" 2>/dev/null || true
		if ! wait_gone "$bg_pid" "$stop_grace"; then
			echo "$name: the server ignored SIGTERM for ${stop_grace}s; sending SIGKILL" >&2
			kill -KILL -- "-$bg_pid" 2>/dev/null || true
		fi
	fi
	wait "$bg_pid" 2>/dev/null || true
	# Whatever the server started in its group goes with it.
	kill -KILL -- "-$bg_pid" 2>/dev/null || true
	bg_pid=""
}

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	stop_background
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
