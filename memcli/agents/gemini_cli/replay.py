"""Replaying a Gemini CLI JSONL session file (0.61 and later) into its messages, each with the lines
it was written on. Checked against Gemini CLI 0.61.0 (`chatRecordingService`, `loadConversationRecord`).

The file is only ever appended to. Its lines:
- the header, first: `sessionId`, `projectHash`, `startTime`, `lastUpdated`, `kind` (main | subagent);
- a message: an object with an `id`. Gemini writes a message again, whole, each time it changes
  (its tool calls, their results and its token counts are added after the text), so the LAST line
  of an id holds the message and the FIRST line is where it entered the conversation;
- `{"$set": {...}}`: an update of the header (lastUpdated after every message, summary,
  memoryScratchpad, directories). With `messages` it is Gemini rebuilding its own list of the
  conversation from its history (at start, after compression, after a failed or cancelled request);
  its messages are those lines' messages, plus the few that were never written on a line of their
  own (the session context added at start), which enter the conversation at the `$set` line;
- `{"$rewindTo": id}`: /rewind took that message and every later one back.

What memcli makes of it: one message per id, in the order they first appeared, each with the line
it first appeared on (its entry index: appending never moves it, so a Source stays valid) and the
last line that wrote it. A `$set` list never removes a message (compression and retries drop what
was still said) and never overrides a message's own lines; `$rewindTo` removes what the user took
back. A line of none of these kinds is counted as skipped ("unknown-record"), never dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.transcript.base import json_objects
from memcli.transcript.model import ReadStats


@dataclass
class Message:
    index: int  # the line it first appeared on
    end: int  # the last line that wrote it
    record: dict[str, Any]  # its latest version


def is_header(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("sessionId"), str) and isinstance(obj.get("projectHash"), str)


def replay(path: Path, stats: ReadStats) -> tuple[dict[str, Any], list[Message]]:
    """(the header with every `$set` applied, the conversation's messages in order)."""
    header: dict[str, Any] = {}
    messages: dict[str, Message] = {}  # insertion order is the order of first appearance
    for index, obj in json_objects(path, stats):
        if isinstance(obj.get("$rewindTo"), str):
            _rewind(messages, obj["$rewindTo"])
            stats.ignored += 1
        elif isinstance(obj.get("id"), str):
            found = messages.get(obj["id"])
            if found is None:
                messages[obj["id"]] = Message(index, index, obj)
            else:
                found.end, found.record = index, obj
        elif isinstance(obj.get("$set"), dict) or is_header(obj):
            update = obj["$set"] if isinstance(obj.get("$set"), dict) else obj
            header.update((k, v) for k, v in update.items() if k != "messages")
            if not _add_unseen(messages, update.get("messages"), index):
                stats.ignored += 1
        else:
            stats.skip("unknown-record")
    return header, list(messages.values())


def _add_unseen(messages: dict[str, Message], listed: Any, index: int) -> int:
    added = 0
    for record in listed if isinstance(listed, list) else []:
        if isinstance(record, dict) and isinstance(record.get("id"), str) and record["id"] not in messages:
            messages[record["id"]] = Message(index, index, record)
            added += 1
    return added


def _rewind(messages: dict[str, Message], message_id: str) -> None:
    """Drop that message and every later one. An id never seen drops nothing: Gemini would clear
    the whole conversation, but a line memcli cannot place must not cost the session."""
    ids = list(messages)
    if message_id in messages:
        for dropped in ids[ids.index(message_id):]:
            del messages[dropped]
