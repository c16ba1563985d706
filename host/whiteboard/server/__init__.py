"""The host process: argv/origin handling, and one dispatch core for the browser's pipe,
the control socket and the early responder."""
