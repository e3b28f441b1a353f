#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# connflood.py: hold many idle TCP connections to a server, for the
# fd-exhaustion tests (test/49-sc-serve-fd-exhaustion.bats, test/stress).
#
#   connflood.py [--send-preface] [--source ADDR] [--timeout S]
#                HOST:PORT COUNT STATEFILE
#
# Opens COUNT connections (from ADDR, e.g. 127.0.0.2, if given) (one attempt each; a refused or reset one is
# counted as failed), optionally sends each the HTTP/2 client preface so
# the server sees a byte, then writes "opened N failed M" to STATEFILE
# and keeps the connections until its standard input ends (or --timeout
# seconds pass).  Before exiting it writes "closed-by-peer K" to
# STATEFILE: how many of the held connections the server had closed.

import argparse
import os
import select
import socket
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--send-preface", action="store_true")
    ap.add_argument("--source")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("address")
    ap.add_argument("count", type=int)
    ap.add_argument("state")
    a = ap.parse_args()
    host, _, port = a.address.rpartition(":")
    host = host.strip("[]")
    socks, failed = [], 0
    for _ in range(a.count):
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        s.settimeout(10)
        try:
            if a.source:
                s.bind((a.source, 0))
            s.connect((host, int(port)))
            if a.send_preface:
                s.sendall(PREFACE)
            socks.append(s)
        except OSError:
            failed += 1
            s.close()
    with open(a.state + ".tmp", "w") as f:
        f.write("opened %d failed %d\n" % (len(socks), failed))
    os.rename(a.state + ".tmp", a.state)
    end = time.monotonic() + a.timeout
    while time.monotonic() < end:
        r, _, _ = select.select([sys.stdin], [], [], 0.5)
        if r and not sys.stdin.buffer.read1(4096):
            break
    closed = 0
    for s in socks:
        s.setblocking(False)
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    closed += 1
                    break
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    with open(a.state, "a") as f:
        f.write("closed-by-peer %d\n" % closed)


if __name__ == "__main__":
    main()
