"""The staff web desk and HTTP API on aiohttp (``vram serve``)."""
