"""Answer text: the shared voice, labels, per-kind blocks and the math view."""
