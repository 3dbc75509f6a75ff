"""primetui: a terminal dashboard for Prime Intellect hosted SFT training."""

__version__ = "0.1.0"
