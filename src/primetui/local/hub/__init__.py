"""A small Hugging Face Hub-compatible endpoint for the datasets the local platform ships.

``hf download`` in a session shell (``HF_ENDPOINT`` points here) reaches :mod:`.routes`;
:mod:`.registry` finds the bundled datasets in :mod:`primetui.local.datasets`.
"""
