"""Datasets the local platform's Hub endpoint serves (``hf download`` with no internet).

One folder per dataset, found by its ``manifest.json`` (``{"repo_id": ..., "repo_type": "dataset"}``);
every other file in the folder is a file of the repo, in the layout ``hf download`` writes. A new
dataset is a new folder: nothing here lists them. See :mod:`primetui.local.hub.registry`.
"""
