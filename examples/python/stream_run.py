#!/usr/bin/env python3
"""Start a runbridge run and print its events as they stream, with the Python standard library only.

    python3 examples/python/stream_run.py [ENV]

RUNBRIDGE_URL (default http://127.0.0.1:8080) says where the bridge is, RUNBRIDGE_API_KEY (optional)
which key to send. This reads the default event stream the way clients of the original /v1/runs
design do: every `data:` line is one JSON event, and its `event` field names it.
"""
import json
import os
import sys
import urllib.request

BASE_URL = os.environ.get("RUNBRIDGE_URL", "http://127.0.0.1:8080").rstrip("/")
API_KEY = os.environ.get("RUNBRIDGE_API_KEY")


def request(path, body=None):
    headers = {"Accept": "text/event-stream"} if body is None else {"Content-Type": "application/json"}
    if API_KEY:
        headers["Authorization"] = f"Bearer {API_KEY}"
    data = None if body is None else json.dumps(body).encode("utf-8")
    return urllib.request.urlopen(urllib.request.Request(BASE_URL + path, data=data, headers=headers))


def main():
    body = {"env": sys.argv[1]} if len(sys.argv) > 1 else {}
    with request("/v1/runs", body) as response:
        run_id = json.load(response)["run_id"]
    print(f"run {run_id}", flush=True)

    with request(f"/v1/runs/{run_id}/events") as stream:
        for raw in stream:
            line = raw.decode("utf-8").rstrip("\n")
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            kind = event["event"]
            if kind == "tool.started":
                print(f"{event['seq']} {kind} {event['tool']} {event['preview']}", flush=True)
            elif kind == "tool.completed":
                print(f"{event['seq']} {kind} {event['tool']} error={event['error']} reward={event['reward']}", flush=True)
            elif kind == "run.completed":
                print(f"{event['seq']} {kind} reward={event['reward']} output={json.dumps(event['output'])}", flush=True)
            elif kind == "run.failed":
                print(f"{event['seq']} {kind} {event['code']}: {event['error']}", flush=True)
            else:
                print(f"{event['seq']} {kind}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
