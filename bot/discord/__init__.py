"""Discord: the discord.py adapter (``vram discord``)."""
