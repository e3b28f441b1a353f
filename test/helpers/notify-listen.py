#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# notify-listen.py SOCKET LOG: a service manager's end of sd_notify(3) for
# test/52-deb-systemd.bats.  Binds the unix datagram SOCKET and appends
# each message to LOG as one line, its fields separated by spaces.  When
# a message says READY=1 with STATUS=listening on HOST:PORT, it connects
# to HOST:PORT at once and appends "[port accepts]" or "[port refuses]",
# so the test sees whether readiness came only once the port accepted.

import socket
import sys

sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as log:
    log.write("listening\n")
    while True:
        data = sock.recv(65536).decode("utf-8", "replace")
        lines = [l for l in data.split("\n") if l]
        fields = dict(l.split("=", 1) for l in lines if "=" in l)
        out = " ".join(lines)
        status = fields.get("STATUS", "")
        if fields.get("READY") == "1" and status.startswith("listening on "):
            host, port = status[len("listening on "):].rsplit(":", 1)
            try:
                socket.create_connection((host, int(port)), timeout=10).close()
                out += " [port accepts]"
            except OSError as e:
                out += " [port refuses: %s]" % e
        log.write(out + "\n")
