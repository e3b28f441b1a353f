# SPDX-License-Identifier: MIT
#
# peers.bash: start and stop the real peers on 127.0.0.1, on a port the
# caller chooses: Apache Spark's own Spark Connect server (local mode, the
# UI off, every listener on loopback) and Sail's.  Sourced by the bats
# files under test/peers/ and by scripts/check-peers and scripts/vs-spark.
#
#   peer_env                       find the virtual environment (make peers)
#   peer_free_port                 print a free loopback port
#   peer_spark_start DIR PORT      start Spark; DIR holds its log and pid
#   peer_sail_start DIR PORT       start Sail the same way
#   peer_serve_start DIR           start sc-serve on port 0; prints sc://
#   peer_stop DIR                  kill the peer whose pid DIR holds
#
# Every start waits, bounded, for the port to answer (Spark: its own
# "server started" log line) and fails with the log when it does not.

# peer_env: set PEERS_VENV, PEERS_PY and SPARK_HOME; fail with one line
# saying what is missing.
peer_env() {
	local top=${SCTK_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
	local build=${SCTK_BUILD:-$top/build}
	PEERS_VENV=${PEERS_VENV:-$build/peers/venv}
	PEERS_PY=$PEERS_VENV/bin/python
	if [ ! -x "$PEERS_PY" ]; then
		echo "peers: no virtual environment at $PEERS_VENV (run make peers)"
		return 1
	fi
	SPARK_HOME=$("$PEERS_PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))' 2>/dev/null)
	if [ -z "$SPARK_HOME" ] || ! ls "$SPARK_HOME"/jars/spark-connect_*.jar >/dev/null 2>&1; then
		echo "peers: pyspark with its jars is not installed in $PEERS_VENV (run make peers)"
		return 1
	fi
	if ! command -v java >/dev/null 2>&1; then
		echo "peers: java is not installed (run make peers)"
		return 1
	fi
	export PEERS_VENV PEERS_PY SPARK_HOME
}

peer_free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# peer_wait DIR PATTERN SECONDS: wait for PATTERN in DIR/log while the
# peer lives.
peer_wait() {
	local dir=$1 pattern=$2 i n=$(($3 * 10))
	for ((i = 0; i < n; i++)); do
		grep -qE "$pattern" "$dir/log" 2>/dev/null && return 0
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			echo "peers: the peer in $dir exited early:" >&2
			tail -30 "$dir/log" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "peers: the peer in $dir was not ready after $3 s:" >&2
	tail -30 "$dir/log" >&2
	peer_stop "$dir"
	return 1
}

# peer_spark_start DIR PORT [--conf k=v ...]: Spark Connect in local[2]
# with at most 2 GB of heap.  spark-class execs java, so the pid is the
# JVM's.
peer_spark_start() {
	local dir=$1 port=$2
	shift 2
	mkdir -p "$dir/work"
	(
		cd "$dir/work" || exit 1
		export SPARK_LOCAL_IP=127.0.0.1 SPARK_LOCAL_HOSTNAME=localhost
		export SPARK_LOG_DIR="$dir/work" SPARK_CONF_DIR="$dir/work"
		export SPARK_DRIVER_MEMORY=2g
		exec "$SPARK_HOME/bin/spark-submit" \
		    --master 'local[2]' \
		    --class org.apache.spark.sql.connect.service.SparkConnectServer \
		    --name sc-peer \
		    --conf spark.connect.grpc.binding.address=127.0.0.1 \
		    --conf spark.connect.grpc.binding.port="$port" \
		    --conf spark.ui.enabled=false \
		    --conf spark.driver.host=127.0.0.1 \
		    --conf spark.driver.bindAddress=127.0.0.1 \
		    --conf spark.blockManager.host=127.0.0.1 \
		    --conf spark.sql.warehouse.dir="$dir/work/warehouse" \
		    --conf spark.local.dir="$dir/work/tmp" \
		    --conf "spark.driver.extraJavaOptions=-Dderby.system.home=$dir/work" \
		    "$@" spark-internal
	) >"$dir/log" 2>&1 </dev/null 3>&- &
	echo $! >"$dir/pid"
	echo "sc://127.0.0.1:$port" >"$dir/remote"
	peer_wait "$dir" 'Spark Connect server started at' 180
}

# peer_sail_start DIR PORT: Sail from its own environment (Sail refuses
# sessions when the PySpark beside it is newer than it knows).
peer_sail_start() {
	local dir=$1 port=$2
	local sail=${PEERS_SAIL_VENV:-$(dirname "$PEERS_VENV")/sail-venv}/bin/sail
	mkdir -p "$dir/work"
	"$sail" spark server --ip 127.0.0.1 --port "$port" -C "$dir/work" >"$dir/log" 2>&1 </dev/null 3>&- &
	echo $! >"$dir/pid"
	echo "sc://127.0.0.1:$port" >"$dir/remote"
	peer_wait_port "$dir" "$port" 60
}

# peer_wait_port DIR PORT SECONDS: wait until PORT accepts connections.
peer_wait_port() {
	local dir=$1 port=$2 i n=$(($3 * 10))
	for ((i = 0; i < n; i++)); do
		if (exec 9<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 0
		fi
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			echo "peers: the peer in $dir exited early:" >&2
			tail -30 "$dir/log" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "peers: nothing listens on port $port after $3 s:" >&2
	tail -30 "$dir/log" >&2
	peer_stop "$dir"
	return 1
}

# peer_serve_start DIR [sc-serve options]: sc-serve from the build.
peer_serve_start() {
	local dir=$1 i
	shift
	mkdir -p "$dir"
	rm -f "$dir/ready"
	"$SCTK_BUILD/bin/sc-serve" --listen 127.0.0.1:0 \
	    --ready-file "$dir/ready" "$@" >"$dir/log" 2>&1 </dev/null 3>&- &
	echo $! >"$dir/pid"
	for ((i = 0; i < 300; i++)); do
		if [ -s "$dir/ready" ]; then
			cp "$dir/ready" "$dir/remote"
			return 0
		fi
		kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
		sleep 0.1
	done
	echo "peers: sc-serve did not become ready:" >&2
	tail -30 "$dir/log" >&2
	peer_stop "$dir"
	return 1
}

# peer_stop DIR: SIGTERM, then SIGKILL after 20 s, by the pid DIR holds.
peer_stop() {
	local dir=$1 pid i
	[ -s "$dir/pid" ] || return 0
	pid=$(cat "$dir/pid")
	kill -TERM "$pid" 2>/dev/null || { rm -f "$dir/pid"; return 0; }
	for ((i = 0; i < 200; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	rm -f "$dir/pid"
	return 0
}
