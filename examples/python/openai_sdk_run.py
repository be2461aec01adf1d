# Start a run and print its answer as it streams, with the openai Python SDK (pip install openai).
import os

from openai import OpenAI, Stream
from openai.types.chat import ChatCompletionChunk

client = OpenAI(
    base_url=os.environ.get("RUNBRIDGE_URL", "http://127.0.0.1:8080").rstrip("/") + "/v1",
    # A bridge without RUNBRIDGE_API_KEYS takes any key; the SDK insists on one.
    api_key=os.environ.get("RUNBRIDGE_API_KEY", "unused"),
)
run = client.post("/runs", body={"env": "arith"}, cast_to=object)
stream = client.get(
    f"/runs/{run['run_id']}/events",
    options={"params": {"format": "openai"}},
    cast_to=ChatCompletionChunk,
    stream=True,
    stream_cls=Stream[ChatCompletionChunk],
)
for chunk in stream:
    for choice in chunk.choices:  # the last chunk carries the usage and no choice
        print(choice.delta.content or "", end="", flush=True)
print()
