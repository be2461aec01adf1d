#!/usr/bin/env python3
"""Hand runbridge a task over A2A, follow it, and approve the call it waits on: standard library only.

    python3 examples/python/a2a_task.py [ENV]

RUNBRIDGE_URL (default http://127.0.0.1:8080) says where the bridge is, RUNBRIDGE_API_KEY (optional)
which key to send. The script finds the endpoint in the agent card, sends `SendStreamingMessage`
(A2A v1.0, JSON-RPC) with a data part holding a run request whose `submit` calls wait for approval,
prints each state and tool call as the stream brings it, approves every call the task waits on with a
message on the task, and prints the reward the task ends with.
"""
import json
import os
import sys
import urllib.error
import urllib.request
import uuid

BASE_URL = os.environ.get("RUNBRIDGE_URL", "http://127.0.0.1:8080").rstrip("/")
API_KEY = os.environ.get("RUNBRIDGE_API_KEY")


def post(url, body, accept):
    headers = {"Content-Type": "application/json", "Accept": accept, "A2A-Version": "1.0"}
    if API_KEY:
        headers["Authorization"] = f"Bearer {API_KEY}"
    request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers)
    return urllib.request.urlopen(request)


def endpoint():
    request = urllib.request.Request(BASE_URL + "/.well-known/agent-card.json", headers={"A2A-Version": "1.0"})
    with urllib.request.urlopen(request) as response:
        card = json.load(response)
    return next(i["url"] for i in card["supportedInterfaces"] if i["protocolVersion"] == "1.0")


def rpc_call(url, method, params, call_id):
    """A unary call: its result, or the JSON-RPC error raised with its A2A code and runbridge's code."""
    with post(url, {"jsonrpc": "2.0", "id": call_id, "method": method, "params": params}, "application/json") as response:
        answer = json.load(response)
    if "error" in answer:
        error = answer["error"]
        raise SystemExit(f"{method} failed ({error['code']}, {error['data'][0]['metadata']['code']}): {error['message']}")
    return answer["result"]


def stream(url, method, params, call_id):
    """The `result` of each SSE frame of a streaming call, as it comes."""
    with post(url, {"jsonrpc": "2.0", "id": call_id, "method": method, "params": params}, "text/event-stream") as response:
        if response.headers.get_content_type() != "text/event-stream":
            error = json.load(response)["error"]
            raise SystemExit(f"{method} failed ({error['code']}): {error['message']}")
        for raw in response:
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("data: "):
                yield json.loads(line[len("data: "):])["result"]


def data_parts(status):
    return [part["data"] for part in status.get("message", {}).get("parts", []) if "data" in part]


def main():
    env = sys.argv[1] if len(sys.argv) > 1 else "arith"
    url = endpoint()
    run = {"env": env, "model": "offline", "approval": {"tools": ["submit"]}}
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"data": run}]}
    task_id, waiting, last = None, [], None
    for event in stream(url, "SendStreamingMessage", {"message": message}, 1):
        if "task" in event:
            task_id = event["task"]["id"]
            print(f"task {task_id} {event['task']['status']['state']}")
        elif "statusUpdate" in event:
            last = event["statusUpdate"]
            status = last["status"]
            for data in data_parts(status):
                if data.get("type") == "tool.started":
                    print(f"tool {data['tool']} {json.dumps(data['arguments'])}")
                elif data.get("type") == "approvals":
                    waiting = data["pending"]
            print(status["state"])
    if last["status"]["state"] == "TASK_STATE_INPUT_REQUIRED":
        for call in waiting:
            print(f"approving {call['tool']} {json.dumps(call['arguments'])}")
        decisions = [{"tool_call_id": call["tool_call_id"], "decision": "approve"} for call in waiting]
        answer = {
            "messageId": str(uuid.uuid4()),
            "role": "ROLE_USER",
            "taskId": task_id,
            "parts": [{"data": {"decisions": decisions}}],
        }
        task = rpc_call(url, "SendMessage", {"message": answer}, 2)["task"]
        print(task["status"]["state"])
        last = {"status": task["status"], "metadata": task["metadata"]}
    print(f"reward {last['metadata'].get('reward')}")


if __name__ == "__main__":
    try:
        main()
    except urllib.error.URLError as error:
        raise SystemExit(f"cannot reach the bridge at {BASE_URL} ({error.reason}): start it, or set RUNBRIDGE_URL.")
