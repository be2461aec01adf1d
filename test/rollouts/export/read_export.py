"""Reads a runbridge rollout export the way a trainer would, with code that is not runbridge's.

    read_export.py stdlib|pandas openai-chat|grpo FILE.jsonl
    read_export.py stdlib|pandas verifiers DIR

Prints one JSON object: the rows in file order (group, sample, reward, scored, env), the reader's
own statistics per group (size, mean, population std), whether the stats and advantages a grpo
export declares match them, the types each column holds, and for verifiers the metadata.json.
`stdlib` uses only Python's standard library; `pandas` loads the file with pandas.read_json.
"""

import json
import math
import statistics
import sys


def load_stdlib(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_pandas(path):
    import pandas

    frame = pandas.read_json(path, lines=True, dtype=False)
    columns = {}
    for name in frame.columns:
        kinds = sorted({type(value).__name__ for value in frame[name] if not is_missing(value)})
        columns[name] = {"dtype": str(frame[name].dtype), "types": kinds}
    return frame.to_dict(orient="records"), columns, len(frame.index)


def is_missing(value):
    if value is None:
        return True
    return isinstance(value, float) and math.isnan(value)


def stdlib_columns(rows):
    names = []
    for row in rows:
        for name in row:
            if name not in names:
                names.append(name)
    columns = {}
    for name in names:
        kinds = sorted({type(row.get(name)).__name__ for row in rows if row.get(name) is not None})
        columns[name] = {"types": kinds, "present_in_every_row": all(name in row for row in rows)}
    return columns


def identity(row, fmt):
    if fmt == "verifiers":
        info = json.loads(row["info"])
        return info["group_id"], int(info["sample_index"]), info["env"]
    return row["group_id"], int(row["sample_index"]), row["env"]


def main():
    reader, fmt, path = sys.argv[1:4]
    results = f"{path}/results.jsonl" if fmt == "verifiers" else path
    if reader == "pandas":
        rows, columns, count = load_pandas(results)
    else:
        rows = load_stdlib(results)
        columns, count = stdlib_columns(rows), len(rows)

    listed = []
    by_group = {}
    for row in rows:
        group_id, sample, env = identity(row, fmt)
        reward = float(row["reward"])
        listed.append({"group_id": group_id, "sample_index": sample, "env": env, "reward": reward,
                       "scored": bool(row["scored"])})
        by_group.setdefault(group_id, []).append(reward)
    groups = {
        group_id: {"size": len(rewards), "mean": statistics.fmean(rewards), "std": statistics.pstdev(rewards)}
        for group_id, rewards in by_group.items()
    }

    declared_match = None
    if fmt == "grpo":
        declared_match = True
        for row in rows:
            group = groups[row["group_id"]]
            expected = 0.0 if group["std"] == 0 else (float(row["reward"]) - group["mean"]) / group["std"]
            if (row["group_size"] != group["size"] or not math.isclose(row["group_mean"], group["mean"], abs_tol=1e-9)
                    or not math.isclose(row["group_std"], group["std"], abs_tol=1e-9)
                    or not math.isclose(row["advantage"], expected, abs_tol=1e-9)):
                declared_match = False

    metadata = None
    if fmt == "verifiers":
        with open(f"{path}/metadata.json", encoding="utf-8") as handle:
            metadata = json.load(handle)

    print(json.dumps({"count": count, "rows": listed, "groups": groups, "declared_match": declared_match,
                      "columns": columns, "metadata": metadata}))


if __name__ == "__main__":
    main()
