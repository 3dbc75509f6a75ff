"""Configuration and persistence: settings, preferences, the one file writer, crash reports. Imports nothing else of
primetui."""
