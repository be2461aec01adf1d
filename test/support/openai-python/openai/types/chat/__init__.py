"""`ChatCompletionChunk` of the stand-in SDK (see `openai/__init__.py`): attributes read from the JSON."""

__all__ = ["ChatCompletionChunk"]


class _Model:
    """Like the SDK's pydantic models built with `construct`: every key an attribute, nested ones too; an absent one None."""

    def __init__(self, data):
        for key, value in data.items():
            setattr(self, key, _wrap(value))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None

    @classmethod
    def construct(cls, data):
        return cls(data)


def _wrap(value):
    if isinstance(value, dict):
        return _Model(value)
    if isinstance(value, list):
        return [_wrap(item) for item in value]
    return value


class ChatCompletionChunk(_Model):
    pass
