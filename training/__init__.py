"""Training code for every weight file the package ships, one command each (docs/memory.md,
"Training"). Not part of the wheel: the host reads the weights, never trains them.

    python -m training.extractor [--check]   host/whiteboard/memory/data/extractor.npz
    python -m training.adapter [--check]     host/whiteboard/memory/data/meaning_adapter.npz
    python -m training.gate [--check]        host/whiteboard/memory/meaning/context_gate.json, context_gate_e5.json
    python -m training.floors [--check]      recall's cosine floors (printed; set in embedder.py)
    python -m training.fusion [--check]      recall's STRONG_WORDS (printed; set in recall.py)
    python -m training.scorer [--locomo]     a pair scorer measured against recall (writes nothing: not shipped)

Each records its training sources with their licences in the weights (`sources.py`); `--check`
trains again and compares with the shipped file instead of writing it (floors and fusion: chooses
again and compares with the value the code ships).
"""
