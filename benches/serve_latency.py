#!/usr/bin/env python3
"""Edit-to-served latency of `coursegen serve` (see BENCHMARKS.md).

Starts `coursegen serve` on a corpus, follows its event stream as a browser tab does, then
RUNS times: appends a unique marker to one entry's body, waits for the rebuild event, fetches
the page and checks that the marker is there. Latency = from the write of the file to the
page's last byte. Prints a Markdown table row (entries, median, runs in ms) on stdout, and
on stderr one line of JSON with the runs and serve's own "rebuilt in … ms" lines.

    python3 benches/serve_latency.py BIN ROOT RUNS
"""
import json, os, socket, statistics, subprocess, sys, threading, time


def get(addr, path):
    host, port = addr.split(":")
    with socket.create_connection((host, int(port))) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        chunks = []
        while (c := s.recv(65536)):
            chunks.append(c)
    return b"".join(chunks).decode("utf-8", "replace")


def main():
    binary, root, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    server = subprocess.Popen([binary, "serve", "--port", "0", "--root", root],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        addr = None
        for line in server.stdout:
            if line.startswith("serving http://"):
                addr = line[len("serving http://"):].split("/")[0]
                break
        if addr is None:
            sys.exit("serve did not start")
        rebuilt = []
        threading.Thread(target=lambda: [rebuilt.append(l.strip()) for l in server.stdout],
                         daemon=True).start()
        host, port = addr.split(":")
        events = socket.create_connection((host, int(port)))
        events.sendall(b"GET /__coursegen/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        stream = events.makefile("r", encoding="utf-8")

        def next_event():
            for line in stream:
                if line.startswith("data: "):
                    return json.loads(line[6:])
            sys.exit("event stream closed")

        next_event()  # the state at connection time
        glossary = os.path.join(root, "content", "glossary")
        slug = sorted(f for f in os.listdir(glossary) if f.endswith(".md"))[0][:-3]
        path = os.path.join(glossary, slug + ".md")
        original = open(path, encoding="utf-8").read()
        times = []
        try:
            for i in range(runs):
                marker = f"latency-probe-{i}-{time.time_ns()}"
                start = time.perf_counter()
                with open(path, "w", encoding="utf-8") as f:
                    f.write(original + f"\n{marker}\n")
                state = next_event()
                page = get(addr, f"/glossary/{slug}/")
                took = (time.perf_counter() - start) * 1000
                if not state["ok"] or marker not in page:
                    sys.exit(f"run {i}: the served page does not show the edit: {state}")
                times.append(round(took, 1))
                time.sleep(0.3)
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
        time.sleep(0.5)
        median = statistics.median(times)
        print(json.dumps({"median_ms": median, "runs_ms": times, "serve_log": rebuilt[-runs:]}),
              file=sys.stderr)
        entries = len([f for f in os.listdir(glossary) if f.endswith(".md")])
        print(f"| {entries} | {median:.1f} | {' '.join(str(t) for t in times)} |")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
