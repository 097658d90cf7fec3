#!/usr/bin/env python3
"""Threads and memory of the controller while its probe server holds many open connections.

Starts `kueuepp standalone` with its probe listener (plain HTTP) and its secure metrics
listener (HTTPS, --secure-listen), opens N idle connections to one of them (TLS ones
finish their handshake), and prints the process's threads and RSS before and with them,
and whether /healthz (or the secure /metrics, answered 401 without a token) is still
served meanwhile.

usage: bench/probe_connections.py KUEUEPP_BINARY [N] [plain|tls]
"""
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return int(fields["Threads"]), int(fields["VmRSS"].split()[0]) // 1024


def served(port, tls):
    """The status line of one request, or why there is none (5 s at most)."""
    try:
        raw = socket.create_connection(("127.0.0.1", port), timeout=5)
        conn = raw
        if tls:
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            conn = ctx.wrap_socket(raw)
        conn.sendall(b"GET " + (b"/metrics" if tls else b"/healthz") + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        line = conn.recv(4096).split(b"\r\n", 1)[0].decode()
        conn.close()
        return line or "closed"
    except Exception as e:  # noqa: BLE001 - the figure is what happened
        return f"not served ({e.__class__.__name__})"


def main():
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    mode = sys.argv[3] if len(sys.argv) > 3 else "plain"
    crds = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy", "crds")
    api, probe, secure = free_port(), free_port(), free_port()
    tmp = tempfile.mkdtemp()
    log = open(os.path.join(tmp, "log"), "w")
    proc = subprocess.Popen([binary, "standalone", "--listen", f"127.0.0.1:{api}", "--probe-listen",
                             f"127.0.0.1:{probe}", "--secure-listen", f"127.0.0.1:{secure}",
                             "--kubeconfig-out", os.path.join(tmp, "kc"), "--crds", crds],
                            stdout=log, stderr=log)
    try:
        for _ in range(150):
            if served(probe, False).endswith("200 OK"):
                break
            time.sleep(0.2)
        time.sleep(1)
        threads, rss = status(proc.pid)
        print(f"{mode}: before: threads {threads}, RSS {rss} MiB")
        port = secure if mode == "tls" else probe
        held = []
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        refused = 0
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if mode == "tls":
                try:
                    s = ctx.wrap_socket(s)
                except (OSError, ssl.SSLError):
                    refused += 1
            held.append(s)
        time.sleep(2)
        threads, rss = status(proc.pid)
        print(f"{mode}: with {n} open connections ({refused} refused in the handshake): "
              f"threads {threads}, RSS {rss} MiB; a new request: {served(port, mode == 'tls')}")
        for s in held:
            s.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
