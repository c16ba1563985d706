"""The host process: argv/origin handling and the frame dispatch loop."""
