"""Whiteboard: privacy-first memory for AI chats (native-messaging host)."""

__version__ = "0.1.0"
# Bumped when a message changes incompatibly; the extension checks it on connect.
PROTOCOL_VERSION = 1
HOST_NAME = "com.whiteboard.host"
