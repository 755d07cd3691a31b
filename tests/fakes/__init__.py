"""Test fakes. discord.py 2.7 imports the stdlib ``audioop`` which warns on Python 3.11+;
with ``filterwarnings = error`` that would fail collection, so import it once quietly here.
(Better long-term: an ``ignore:'audioop' is deprecated`` entry in pyproject's filterwarnings.)"""

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import audioop  # noqa: F401
