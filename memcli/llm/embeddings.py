"""Embeddings: one call per batch of texts, through litellm (any provider)."""

from __future__ import annotations

from memcli.llm.endpoint import Endpoint
from memcli.llm.errors import LLMError
from memcli.llm.library import litellm, short


def embed(endpoint: Endpoint, texts: list[str], *, input_type: str | None = None) -> list[list[float]]:
    """One embedding call (litellm, any provider): a vector per text, in order. `input_type` is
    sent only when given (providers that do not know it may refuse it). Errors are raised as
    LLMError with a one-line reason; the caller decides whether to go on without vectors."""
    library = litellm()
    import openai  # here: litellm's own dependency, loaded with it (never at memcli's start)

    try:
        extra = {"input_type": input_type} if input_type else {}
        response = library.embedding(model=endpoint.model, input=texts, api_base=endpoint.api_base,
                                     timeout=endpoint.timeout_s, num_retries=0, **extra)
    except (library.APIError, library.APIConnectionError, library.Timeout, openai.OpenAIError,
            library.BadRequestError) as exc:  # every provider error litellm maps
        raise LLMError(f"embedding model {endpoint.model}: {short(exc)}") from None
    data = sorted(response.data, key=lambda d: d["index"] if isinstance(d, dict) else d.index)
    vectors = [list(d["embedding"] if isinstance(d, dict) else d.embedding) for d in data]
    if len(vectors) != len(texts):
        raise LLMError(f"embedding model {endpoint.model}: {len(vectors)} vectors for {len(texts)} texts")
    return vectors
