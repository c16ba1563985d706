"""vBRIEF helpers shared by the unit and wire tests."""

import json


def without_import_differences(document: dict) -> dict:
    """A vBRIEF document (wire form) without what may differ after an import: the new
    session's id and start time, and the document's creation time."""
    d = json.loads(json.dumps(document))
    d["vBRIEFInfo"].pop("created")
    for info in (d["vBRIEFInfo"]["sessionInfo"], d["sessionSnapshot"]["sessionInfo"]):
        info.pop("id"), info.pop("startTime")
    for obs in d["sessionSnapshot"]["observations"]:
        obs.pop("sessionId")
    return d
