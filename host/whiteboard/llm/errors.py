"""Model-layer failures as typed wire errors. Messages never carry the API key,
a prompt, an answer or an endpoint's reply body (which may echo either)."""

from __future__ import annotations

from ..protocol.errors import BadRequest, Unavailable

CONFIGURE_HINT = ("configure one on the extension's options page (Model) "
                  "or with `whiteboard config set --preset ... --model ...`")


class NoModel(Unavailable):
    reason = "no_model"

    def __init__(self) -> None:
        super().__init__(f"no model is configured: {CONFIGURE_HINT}")


class ModelUnavailable(Unavailable):
    """The endpoint could not be reached, refused, timed out or answered garbage.

    `partial` is how many characters of an answer had streamed before the failure.
    """

    reason = "model_unavailable"

    def __init__(self, message: str, partial: int = 0):
        super().__init__(message)
        self.partial = partial


class ReplyTooLarge(ModelUnavailable):
    """The endpoint's reply passed the cap, counting a line that has not ended yet."""
    reason = "reply_too_large"

    def __init__(self, cap: int, partial: int = 0):
        super().__init__(f"the model endpoint's reply passed {cap} bytes", partial=partial)


class InsecureUrl(BadRequest):
    """A base URL with http:// to another computer, without the user's explicit consent:
    the API key and every prompt would cross the network unencrypted (docs/models.md)."""
    reason = "insecure_url"


class InsecureUrlInForce(Unavailable):
    """The same URL found in force (a hand-edited file, the environment): nothing is sent."""
    reason = "insecure_url"


class Cancelled(Exception):
    """The caller set the cancel event; `text` is what had streamed so far."""

    def __init__(self, text: str = ""):
        super().__init__("cancelled")
        self.text = text
