"""A stand-in for the openai Python SDK, for the tests of examples written for it.

Debian has no python3-openai and the machines that run the tests reach no other package index, so
`test/clients/openai-python-sdk.python.test.ts` runs an example with the real SDK when python3 has it,
and with this module otherwise. It does what the SDK does on the wire for the calls the examples
make, read from openai-python's `_base_client.py`, `_response.py` and `_streaming.py`: the headers it
sends with every request (`Accept: application/json` included, streams too), the base URL joined with
the path, an error for a non-2xx answer, and a stream read as its `SSEDecoder` reads one — whatever
the answer's content type — until `[DONE]`, parsing each message's data as JSON.
"""
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Generic, TypeVar

__all__ = ["APIStatusError", "OpenAI", "Stream"]

_T = TypeVar("_T")


class APIStatusError(Exception):
    def __init__(self, message, status_code, body):
        super().__init__(message)
        self.status_code = status_code
        self.body = body


class Stream(Generic[_T]):
    """Iterates a streamed answer: one item per server-sent message, until `[DONE]`."""

    def __init__(self, *, cast_to, response):
        self._cast_to = cast_to
        self._response = response

    def __iter__(self):
        try:
            for sse in _decode(self._response):
                if sse["data"].startswith("[DONE]"):
                    break
                data = json.loads(sse["data"])
                if isinstance(data, dict) and data.get("error"):
                    raise APIStatusError("An error occurred during streaming", 200, data["error"])
                yield _construct(self._cast_to, data)
        finally:
            self._response.close()


class OpenAI:
    def __init__(self, *, base_url, api_key):
        self.base_url = base_url.rstrip("/") + "/"
        self.api_key = api_key

    def get(self, path, *, cast_to, options=None, stream=False, stream_cls=None):
        return self._request("GET", path, None, cast_to, options or {}, stream, stream_cls)

    def post(self, path, *, cast_to, body=None, options=None, stream=False, stream_cls=None):
        return self._request("POST", path, body, cast_to, options or {}, stream, stream_cls)

    def _request(self, method, path, body, cast_to, options, stream, stream_cls):
        url = self.base_url + path.lstrip("/")
        params = options.get("params")
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params)
        headers = {
            "Accept": "application/json",
            "Content-Type": "application/json",
            "User-Agent": "OpenAI/Python stand-in",
            "X-Stainless-Lang": "python",
            "X-Stainless-Retry-Count": "0",
            "Authorization": f"Bearer {self.api_key}",
            **options.get("headers", {}),
        }
        data = None if body is None else json.dumps(body).encode()
        try:
            response = urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers, method=method))
        except urllib.error.HTTPError as error:
            raw = error.read().decode("utf-8", "replace")
            raise APIStatusError(f"Error code: {error.code} - {raw}", error.code, raw) from None
        if stream:
            return stream_cls(cast_to=stream_cls.chunk_type, response=response)
        with response:
            return _construct(cast_to, json.loads(response.read()))


def _stream_class_getitem(cls, item):
    # `Stream[ChatCompletionChunk]` as a class that knows its chunk type (the SDK's
    # `extract_stream_chunk_type`).
    return type(f"Stream[{item.__name__}]", (cls,), {"chunk_type": item})


Stream.__class_getitem__ = classmethod(_stream_class_getitem)


def _construct(cast_to, data):
    return data if cast_to is object else cast_to.construct(data)


def _decode(response):
    """`SSEDecoder.iter_bytes`: lines split at CR, LF or CRLF; a blank line dispatches once any field was seen."""
    event, lines, last_id, retry = None, [], None, None
    buffer = b""
    pending_cr = False
    for chunk in iter(lambda: response.read1(65536), b""):
        if pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        pending_cr = chunk.endswith(b"\r")
        buffer += chunk
        *complete, buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        for raw in complete:
            line = raw.decode("utf-8")
            if not line:
                if event or lines or last_id or retry is not None:
                    yield {"event": event, "data": "\n".join(lines), "id": last_id, "retry": retry}
                # As in the SDK: the last event id is kept across messages.
                event, lines, retry = None, [], None
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if field == "event":
                event = value
            elif field == "data":
                lines.append(value)
            elif field == "id" and "\0" not in value:
                last_id = value
            elif field == "retry":
                try:
                    retry = int(value)
                except ValueError:
                    pass
