// chat.example (test-only): nothing differs from the shared framework's defaults.
Whiteboard.chat.define({ site: "example-chat", selectors: Whiteboard.selectors.get("example-chat") });
