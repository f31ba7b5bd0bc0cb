#!/usr/bin/env python3
"""A static file server that answers late, for the update benchmark's latency round.

Usage: slow-server.py --root DIR --hosts N [--port P] [--min-ms 150] [--max-ms 300] [--seed S]
                      [--ready FILE] [--access-log FILE] [--parent PID] [--lifetime SECONDS]

Listens on the N loopback addresses 127.0.0.1 ... 127.0.0.N, all on one port (P, or a free one
when P is 0; the port is written to --ready once every address listens), and serves the files
under DIR as nginx would for GET and HEAD: Content-Length, Content-Type by extension, ETag
("mtime-size" in hex, nginx's form) and Last-Modified, and 304 Not Modified for a conditional
GET whose If-None-Match names the ETag or, without If-None-Match, whose If-Modified-Since is not
older than the file. HTTP/1.1 connections are kept alive (as are HTTP/1.0 ones that ask), so a
client reuses them; requests on one connection are answered in order.

Every answer waits before its status line: a delay between --min-ms and --max-ms drawn from
--seed and the request's path alone, so each file always takes the same time to answer, whoever
asks and in whatever order: runs and tools compare. The delay is a server's think time and the
network's round trip; the connection itself is accepted at once.

Each answer is logged before it is sent, in nginx's combined format, so a benchmark that counts
the lines when its client exits has them all. The server stops by itself when --parent is gone
or --lifetime (default 3600 s) has passed. Standard library only.
"""

import argparse
import asyncio
import email.utils
import os
import random
import signal
import sys
import time

TYPES = {".xml": "application/rss+xml", ".mp3": "audio/mpeg", ".opml": "text/x-opml"}
REASONS = {200: "OK", 304: "Not Modified", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}


class Server:
    def __init__(self, args):
        self.root = os.path.realpath(args.root)
        self.min_s = args.min_ms / 1000
        self.span_s = (args.max_ms - args.min_ms) / 1000
        self.seed = args.seed
        self.log = open(args.access_log, "a", buffering=1) if args.access_log else None

    def delay(self, path):
        # random.Random seeds from a str through SHA-512: the same on every run and machine.
        return self.min_s + self.span_s * random.Random(f"{self.seed}\0{path}").random()

    def file_for(self, target):
        path = target.split("?", 1)[0].split("#", 1)[0]
        full = os.path.realpath(os.path.join(self.root, path.lstrip("/")))
        if full != self.root and not full.startswith(self.root + os.sep):
            return path, None
        return path, full if os.path.isfile(full) else None

    def answer(self, method, target, headers):
        """Returns (status, headers, body) for one request."""
        path, full = self.file_for(target)
        if method not in ("GET", "HEAD"):
            return path, 405, [("Allow", "GET, HEAD")], b""
        if full is None:
            return path, 404, [("Content-Type", "text/plain")], b"not found\n"
        stat = os.stat(full)
        etag = f'"{int(stat.st_mtime):x}-{stat.st_size:x}"'
        modified = email.utils.formatdate(int(stat.st_mtime), usegmt=True)
        fields = [("ETag", etag), ("Last-Modified", modified)]
        if self.not_modified(headers, etag, int(stat.st_mtime)):
            return path, 304, fields, b""
        kind = TYPES.get(os.path.splitext(full)[1], "application/octet-stream")
        with open(full, "rb") as file:
            body = file.read()
        return path, 200, [("Content-Type", kind)] + fields, body

    @staticmethod
    def not_modified(headers, etag, mtime):
        if "if-none-match" in headers:
            tags = [tag.strip() for tag in headers["if-none-match"].split(",")]
            return "*" in tags or any(tag.removeprefix("W/") == etag for tag in tags)
        if "if-modified-since" in headers:
            try:
                since = email.utils.parsedate_to_datetime(headers["if-modified-since"]).timestamp()
            except (TypeError, ValueError):
                return False
            return mtime <= since
        return False

    async def serve(self, reader, writer):
        peer = writer.get_extra_info("peername")[0]
        try:
            while True:
                try:
                    line = await reader.readline()
                except (ConnectionError, asyncio.LimitOverrunError, ValueError):
                    return
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    continue  # stray blank lines between requests are allowed
                parts = line.decode("latin-1").split()
                headers = {}
                while True:
                    field = await reader.readline()
                    if field in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = field.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
                    await self.send(writer, peer, line, "HTTP/1.1", "-", 400, [], b"bad request\n", False, headers)
                    return
                method, target, version = parts
                if "content-length" in headers:  # GET and HEAD have no body, but one is read if sent
                    await reader.readexactly(int(headers["content-length"]))
                connection = headers.get("connection", "").lower()
                keep = "keep-alive" in connection if version == "HTTP/1.0" else "close" not in connection
                path, status, fields, body = self.answer(method, target, headers)
                await asyncio.sleep(self.delay(path))
                await self.send(writer, peer, line, version, method, status, fields, body, keep, headers)
                if not keep:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        except asyncio.CancelledError:
            return  # the server stops: the connection closes (Python 3.11 would log the cancellation)
        finally:
            writer.close()

    async def send(self, writer, peer, line, version, method, status, fields, body, keep, headers):
        length = len(body)
        head = [f"HTTP/1.1 {status} {REASONS[status]}", f"Date: {email.utils.formatdate(usegmt=True)}",
                "Server: slow-server"]
        head += [f"{name}: {value}" for name, value in fields]
        if status != 304:
            head.append(f"Content-Length: {length}")
        head.append("Connection: keep-alive" if keep else "Connection: close")
        sent = 0 if method == "HEAD" or status == 304 else length
        if self.log:
            stamp = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime())
            request = line.decode("latin-1").strip().replace('"', "'")
            agent = headers.get("user-agent", "-").replace('"', "'")
            self.log.write(f'{peer} - - [{stamp}] "{request}" {status} {sent} "-" "{agent}"\n')
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        if sent:
            writer.write(body)
        await writer.drain()


async def main():
    parser = argparse.ArgumentParser(description="A static file server that answers late.")
    parser.add_argument("--root", required=True)
    parser.add_argument("--hosts", type=int, default=30)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--min-ms", type=int, default=150)
    parser.add_argument("--max-ms", type=int, default=300)
    parser.add_argument("--seed", default="podcast-bench")
    parser.add_argument("--ready")
    parser.add_argument("--access-log")
    parser.add_argument("--parent", type=int)
    parser.add_argument("--lifetime", type=float, default=3600)
    args = parser.parse_args()
    if not 1 <= args.hosts <= 254 or not 0 <= args.min_ms <= args.max_ms:
        parser.error("--hosts is 1 to 254, and 0 <= --min-ms <= --max-ms")

    server = Server(args)
    addresses = [f"127.0.0.{n}" for n in range(1, args.hosts + 1)]
    # One port on every address: take a free one on the first, then the same on the others; when
    # another program holds it there, start again with another.
    for attempt in range(20):
        listeners = []
        try:
            first = await asyncio.start_server(server.serve, addresses[0], args.port, backlog=1024)
            listeners.append(first)
            port = first.sockets[0].getsockname()[1]
            for address in addresses[1:]:
                listeners.append(await asyncio.start_server(server.serve, address, port, backlog=1024))
            break
        except OSError as error:
            for listener in listeners:
                listener.close()
            if args.port or attempt == 19:
                sys.exit(f"slow-server: cannot listen on {', '.join(addresses[:1])}…: {error}")
    if args.ready:
        with open(args.ready + ".part", "w") as file:
            file.write(f"{port}\n")
        os.rename(args.ready + ".part", args.ready)

    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, lambda: stop.done() or stop.set_result(None))
    deadline = loop.time() + args.lifetime
    while not stop.done() and loop.time() < deadline:
        if args.parent:
            try:
                os.kill(args.parent, 0)
            except ProcessLookupError:
                break
        await asyncio.wait([stop], timeout=1)
    for listener in listeners:
        listener.close()


if __name__ == "__main__":
    asyncio.run(main())
