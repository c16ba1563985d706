"""Wire protocol: framing, message schemas and the error model (design §2-3)."""

# Bumped when a message changes incompatibly. `ping` reports it; the extension compares it
# with the range it speaks (extension/background/native-port.js, PROTOCOL) and the popup
# says which side to update.
PROTOCOL_VERSION = 1
