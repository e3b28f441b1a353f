#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# 12-sc-serve-logging: one log line per operation event (started,
# attached, detached, rotated, released, abandoned, failed, finished),
# each naming the operation, in the server's line format.

bats_require_minimum_version 1.7.0
load helpers/common
load helpers/server

setup_file() {
	sc_server_start --log-level info \
	    --conf spark.connect.execute.reattachable.senderMaxStreamSize=4k \
	    --conf spark.connect.execute.manager.detachedTimeout=1s \
	    --conf spark.connect.execute.manager.maintenanceInterval=200ms
}

teardown_file() {
	sc_server_stop
}

# log_op ID EVENT: the log has "<ts> <pid> I operation ID EVENT..."
log_op() {
	grep -qE "^[0-9T:.-]+Z $SCTK_SERVER_PID I operation $1 $2" \
	    "$BATS_FILE_TMPDIR/server.log"
}

@test "a rotated query logs started, rotated, attached, finished, released" {
	local id=6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9
	run -0 sc-exec --operation-id "$id" --format csv --no-header \
	    "SELECT id FROM range(0, 20000)"
	[ "${#lines[@]}" -eq 20000 ]
	[ "${lines[19999]}" = "19999" ]
	log_op "$id" "started: session "
	log_op "$id" "detached: stream rotated at senderMaxStreamSize"
	log_op "$id" "attached: reattach "
	log_op "$id" "finished: "
	wait_for log_op "$id" "released \\(FINISHED\\)"
}

@test "a failing query logs failed with its error class" {
	run -1 --separate-stderr sc-exec "SELECT * FROM no_such_table"
	[[ "$stderr" == *"[TABLE_OR_VIEW_NOT_FOUND]"* ]]
	log_op "[0-9a-f-]{36}" \
	    "failed after 0 responses: \\[TABLE_OR_VIEW_NOT_FOUND\\] The table or view .no_such_table. cannot be found"
}

@test "a detached operation nobody attaches to is logged abandoned" {
	local sid=7d3c9a10-2b4e-4f6a-9c8d-1e2f3a4b5c6d
	run -0 --separate-stderr sc-exec --session-id "$sid" --detach \
	    "SELECT id FROM range(0, 100)"
	local id=$output
	[[ "$id" =~ ^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]]
	log_op "$id" "started: "
	wait_for log_op "$id" "abandoned: detached for [0-9]+ ms"
	run -3 --separate-stderr sc-exec --session-id "$sid" --attach "$id"
	[[ "$stderr" == *"[INVALID_HANDLE.OPERATION_ABANDONED]"* ]]
}
