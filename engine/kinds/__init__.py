"""The answer kinds: functions of a :class:`~engine.kinds.base.Builder`, one module per family."""
