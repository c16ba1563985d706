"""vbrief.import: an exported document back as a tab's session in RAM.

The document was validated by its models (structure, sizes, cross-references). Each
observation becomes a message in order, with its role, source and timestamp; its text
goes through the privacy filter again (an import is a capture). The session itself
starts now (the TTL counts from the import) and sessionInfo.context becomes its
rolling summary, which already covers the observations tagged "summarised". Beyond the
store's message cap, the oldest messages after the first are handed to the rolling
summary exactly as the cap does for live capture.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..privacy import redact
from ..protocol.errors import BadRequest
from ..sessions.store import Message, Session, SessionStore
from .models import Observation, VBriefDocument


@dataclass(frozen=True)
class Restored:
    session: Session
    redacted: int  # texts the privacy filter changed on the way in


def role_and_source(obs: Observation) -> tuple[str, str]:
    if obs.tool == "selection":
        return ("assistant" if "assistant" in obs.tags else "user"), "selection"
    return obs.tool.removeprefix("chat."), "chat"


def restore_session(store: SessionStore, key: str, document: VBriefDocument, replace: bool) -> Restored:
    snapshot = document.session_snapshot
    messages, redacted = [], 0
    for seq, obs in enumerate(snapshot.observations, start=1):
        role, source = role_and_source(obs)
        filtered = redact(obs.text)
        changed = filtered.text != obs.text
        redacted += changed
        kinds = [*(obs.redaction_info.patterns if obs.redaction_info else []), *(filtered.kinds if changed else [])]
        messages.append(Message(seq, role, filtered.text, obs.timestamp.timestamp(), source,
                                redacted=tuple(dict.fromkeys(kinds))))
    with store.lock:
        if store.get(key) is not None:
            if not replace:
                raise BadRequest("this tab already has a session; send \"replace\": true to overwrite it")
            store.clear(key)
        session = store.get_or_create(key)
        session.seed = messages[0]
        session.messages = messages
        session.kept_bytes = sum(m.size for m in messages)
        session.summary = redact(snapshot.session_info.context).text
        session.summary_method = "imported" if session.summary else "none"
        # Observations tagged "summarised" are in the imported summary already: never fold them twice.
        session.folded_through = max((n for n, o in enumerate(snapshot.observations, start=1)
                                      if "summarised" in o.tags), default=0)
        session.next_seq = len(messages) + 1
        store.enforce_caps(session)
    return Restored(session, redacted)
