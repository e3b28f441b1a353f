# SPDX-License-Identifier: MIT
"""crc-proxy: a gRPC proxy in front of a Spark Connect server that spoils
one AddArtifacts chunk, once, so that the server finds its CRC wrong.

    python crc-proxy.py [--flip N] [--timeout SECONDS] PORT

Listens on 127.0.0.1 port 0, prints the port it got on standard output
(one line), and forwards every SparkConnectService call to
127.0.0.1:PORT unchanged (messages as bytes, metadata, statuses and
their details), except the Nth piece of artifact data sent through
AddArtifacts (a batched artifact, a chunked one's first chunk, or a later
chunk; N is 1 unless --flip says), whose first byte it inverts while
leaving the CRC the client computed.  It says on standard error which
artifact and piece it spoiled.  It ends on SIGTERM, or after --timeout
seconds (default 600), so a test that dies leaves nothing behind.

Needs grpcio and PySpark's protocol classes: the peers' environment
(make peers).
"""

import argparse
import signal
import sys
import threading

import grpc
from pyspark.sql.connect.proto import base_pb2

SERVICE = "/spark.connect.SparkConnectService/"
# Methods whose answer is a stream; AddArtifacts is the one whose
# request is a stream; everything else is one message each way.
STREAM_OUT = {"ExecutePlan", "ReattachExecute"}


class Flipper:
    """Spoils the Nth piece of artifact data, once."""

    def __init__(self, nth):
        self.nth = nth
        self.seen = 0
        self.lock = threading.Lock()

    def take(self):
        with self.lock:
            self.seen += 1
            return self.seen == self.nth

    def request(self, raw):
        req = base_pb2.AddArtifactsRequest()
        req.ParseFromString(raw)
        which = req.WhichOneof("payload")
        spoiled = None
        if which == "batch":
            for a in req.batch.artifacts:
                if self.take() and a.data.data:
                    a.data.data = flip(a.data.data)
                    spoiled = "'%s' (batched)" % a.name
        elif which == "begin_chunk":
            if self.take() and req.begin_chunk.initial_chunk.data:
                c = req.begin_chunk.initial_chunk
                c.data = flip(c.data)
                spoiled = "'%s' (its first chunk)" % req.begin_chunk.name
        elif which == "chunk":
            if self.take() and req.chunk.data:
                req.chunk.data = flip(req.chunk.data)
                spoiled = "a later chunk"
        if spoiled is None:
            return raw
        print("crc-proxy: flipped a byte of %s" % spoiled, file=sys.stderr,
              flush=True)
        return req.SerializeToString()


def flip(data):
    return bytes([data[0] ^ 0xFF]) + data[1:]


def forward_metadata(context):
    return [(k, v) for k, v in context.invocation_metadata()
            if not k.startswith(":") and k not in ("user-agent", "te")]


def relay_error(context, e):
    """Give the client the server's status, details and trailers."""
    trailers = e.trailing_metadata() or ()
    context.set_trailing_metadata(tuple(trailers))
    context.set_code(e.code())
    context.set_details(e.details() or "")


class Proxy(grpc.GenericRpcHandler):
    def __init__(self, channel, flipper):
        self.channel = channel
        self.flipper = flipper

    def service(self, details):
        method = details.method
        if not method.startswith(SERVICE):
            return None
        name = method[len(SERVICE):]
        ch = self.channel

        if name == "AddArtifacts":
            def handler(it, context):
                call = ch.stream_unary(method)
                try:
                    return call((self.flipper.request(r) for r in it),
                                metadata=forward_metadata(context))
                except grpc.RpcError as e:
                    relay_error(context, e)
                    return b""
            return grpc.stream_unary_rpc_method_handler(handler)
        if name in STREAM_OUT:
            def handler(req, context):
                call = ch.unary_stream(method)
                try:
                    for r in call(req, metadata=forward_metadata(context)):
                        yield r
                except grpc.RpcError as e:
                    relay_error(context, e)
            return grpc.unary_stream_rpc_method_handler(handler)

        def handler(req, context):
            call = ch.unary_unary(method)
            try:
                return call(req, metadata=forward_metadata(context))
            except grpc.RpcError as e:
                relay_error(context, e)
                return b""
        return grpc.unary_unary_rpc_method_handler(handler)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flip", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("port", type=int)
    a = ap.parse_args()
    limit = 256 * 1024 * 1024
    opts = [("grpc.max_receive_message_length", limit),
            ("grpc.max_send_message_length", limit)]
    channel = grpc.insecure_channel("127.0.0.1:%d" % a.port, options=opts)
    from concurrent import futures
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8),
                         handlers=[Proxy(channel, Flipper(a.flip))],
                         options=opts)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(port, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    done.wait(a.timeout)
    server.stop(1).wait()
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
