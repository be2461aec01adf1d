#!/usr/bin/env python3
"""Start a runbridge run and print its events as they stream, with the Python standard library only.

    python3 examples/python/stream_run.py [ENV]

RUNBRIDGE_URL (default http://127.0.0.1:8080) says where the bridge is, RUNBRIDGE_API_KEY (optional)
which key to send. This reads the default event stream the way any plain SSE client can: every
`data:` line is one JSON event, and its `event` field names it. Text and reasoning
deltas are streamed inline, one line per stretch; every other event gets a line of its own.
"""
import http.client
import json
import os
import sys
import urllib.error
import urllib.request

BASE_URL = os.environ.get("RUNBRIDGE_URL", "http://127.0.0.1:8080").rstrip("/")
API_KEY = os.environ.get("RUNBRIDGE_API_KEY")
DELTAS = {"message.delta": "message", "reasoning.delta": "reasoning"}


class BridgeError(Exception):
    """Something the user can act on: the bridge is not there, or it refused the request."""


def request(path, body=None):
    # Every POST says it is JSON, an empty one too: a bridge without API keys refuses any other.
    headers = {"Accept": "text/event-stream"} if body is None else {"Content-Type": "application/json"}
    if API_KEY:
        headers["Authorization"] = f"Bearer {API_KEY}"
    data = None if body is None else json.dumps(body).encode("utf-8")
    try:
        return urllib.request.urlopen(urllib.request.Request(BASE_URL + path, data=data, headers=headers))
    except urllib.error.HTTPError as error:
        try:
            message = json.load(error)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = error.reason
        raise BridgeError(f"the bridge answered {error.code}: {message}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise BridgeError(
            f"cannot reach the bridge at {BASE_URL} ({reason}). Start it with `npm start` "
            "(or `npx runbridge serve`), or point RUNBRIDGE_URL at a running one."
        ) from None


def describe(event):
    kind = event["event"]
    if kind == "tool.started":
        return f"{kind} {event['tool']} {event['preview']}"
    if kind == "tool.completed":
        return f"{kind} {event['tool']} error={event['error']} reward={event['reward']}"
    if kind == "run.completed":
        return f"{kind} reward={event['reward']} output={json.dumps(event['output'])}"
    if kind == "run.failed":
        return f"{kind} {event['code']}: {event['error']}"
    return kind


def follow(run_id):
    try:
        stream_events(run_id)
    except (OSError, http.client.HTTPException) as error:
        print()
        raise BridgeError(f"the event stream broke ({error!r}); the run goes on: read it at /v1/runs/{run_id}") from None


def stream_events(run_id):
    open_stretch = None  # "message" or "reasoning" while a line of deltas is being written
    with request(f"/v1/runs/{run_id}/events") as stream:
        for raw in stream:
            line = raw.decode("utf-8").rstrip("\n")
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            stretch = DELTAS.get(event["event"])
            if stretch is not None:
                if stretch != open_stretch:
                    if open_stretch is not None:
                        print()
                    print(f"{event['seq']} {stretch}: ", end="")
                    open_stretch = stretch
                print(event["delta"], end="", flush=True)
                continue
            if open_stretch is not None:
                print()
                open_stretch = None
            print(f"{event['seq']} {describe(event)}", flush=True)


def main():
    body = {"env": sys.argv[1]} if len(sys.argv) > 1 else {}
    try:
        with request("/v1/runs", body) as response:
            run_id = json.load(response)["run_id"]
        print(f"run {run_id}", flush=True)
        follow(run_id)
    except BridgeError as error:
        print(f"stream_run.py: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
