"""`whiteboard demo`: Chromium with the extension and the host on a local copy of a chat site."""
