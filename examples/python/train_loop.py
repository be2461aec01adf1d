"""A training-loop skeleton on runbridge's rollout service (docs/rollouts.md, "The service").

Each step asks any runbridge instance for a batch of rollouts sampled with the current policy,
reads the GRPO groups as they complete, and stops reading after the first K groups, cancelling the
rest of the batch: a trainer that keeps its GPUs busy takes the fastest groups and moves on. Where
the gradient step would go, it prints what it would train on.

Needs `requests` (pip install requests). Settings come from the environment:

  RUNBRIDGE_URL       the bridge, or the cluster behind one URL (default http://127.0.0.1:8080)
  RUNBRIDGE_API_KEY   its bearer key, when it wants one
  RUNBRIDGE_MODEL     the model the bridge samples (default offline)
  STEPS, TASKS, SAMPLES, GROUPS   steps to train, tasks per batch, samples per task, groups to read per step
"""

import json
import os
import sys

import requests

URL = os.environ.get("RUNBRIDGE_URL", "http://127.0.0.1:8080").rstrip("/")
KEY = os.environ.get("RUNBRIDGE_API_KEY")
MODEL = os.environ.get("RUNBRIDGE_MODEL", "offline")
STEPS = int(os.environ.get("STEPS", "2"))
TASKS = int(os.environ.get("TASKS", "8"))
SAMPLES = int(os.environ.get("SAMPLES", "4"))
GROUPS = int(os.environ.get("GROUPS", "3"))

session = requests.Session()
if KEY:
    session.headers["Authorization"] = f"Bearer {KEY}"


def start_batch(step, policy_version):
    """POST /v1/rollouts: this step's tasks, sampled with the current policy; returns the batch."""
    first = step * TASKS
    response = session.post(
        f"{URL}/v1/rollouts",
        json={
            "env": "arith",
            "tasks": f"{first}:{first + TASKS}",
            "samples": SAMPLES,
            "model": MODEL,
            "seed": step,
            "sampling": {"temperature": 1.0},
            "policy_version": policy_version,
        },
        # The same key on a retry answers the same batch instead of starting a second one.
        headers={"Idempotency-Key": f"train-step-{step}-{policy_version}"},
        timeout=30,
    )
    if response.status_code not in (200, 202):
        sys.exit(f"the bridge refused the batch ({response.status_code}): {response.text}")
    return response.json()


def first_groups(batch, count):
    """Reads the batch's GRPO rows as NDJSON until `count` whole groups are in; returns them."""
    groups, partial = [], {}
    with session.get(f"{URL}{batch['records_url']}", params={"format": "grpo"}, stream=True, timeout=60) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if not line:
                continue  # a keep-alive
            row = json.loads(line)
            rows = partial.setdefault(row["group_id"], [])
            rows.append(row)
            if len(rows) == row["group_size"]:
                groups.append(partial.pop(row["group_id"]))
                if len(groups) == count:
                    break  # closing the response stops the stream; the cancel below stops the batch
    return groups


def train_step(step, policy_version, groups):
    """Where the gradient step goes: here, one line per group with what it would be trained on."""
    for rows in groups:
        versions = {row.get("policy_version") for row in rows}
        assert versions == {policy_version}, f"off-policy rows in this step: {versions}"
        advantages = " ".join(f"{row['advantage']:+.2f}" for row in sorted(rows, key=lambda r: r["sample_index"]))
        print(
            f"step {step} {policy_version} group {rows[0]['group_id']} "
            f"size {len(rows)} mean {rows[0]['group_mean']:.3f} advantages {advantages}"
        )


for step in range(STEPS):
    policy_version = f"policy-{step}"
    batch = start_batch(step, policy_version)
    groups = first_groups(batch, GROUPS)
    session.post(f"{URL}/v1/rollouts/{batch['rollout_id']}/cancel", json={}, timeout=30).raise_for_status()
    train_step(step, policy_version, groups)
    snapshot = session.get(f"{URL}/v1/rollouts/{batch['rollout_id']}", timeout=30).json()
    print(
        f"step {step} batch {batch['rollout_id']} {snapshot['status']}: "
        f"{snapshot['completed'] + snapshot['failed']} of {snapshot['total']} recorded"
    )
