"""Pure, fast core of the run monitor (no textual, no rich).

- :mod:`.escapes`: make log text harmless (control characters shown, never executed).
- :mod:`.lines`: recognise what a log line is (prime-rl levels and step lines, the platform's
  JSON envelope lines, tqdm progress bars, gaps).
- :mod:`.store`: the bounded, indexed, chunked log store and the time-merged view over several.
- :mod:`.filters`: search and filter (substring or regex, invert, minimum level) over a store.
- :mod:`.metrics`: metric column arrays, EMA smoothing, min/max-per-column decimation.
- :mod:`.canvas`: a braille / block / ASCII line-chart rasteriser producing plain rows.
"""
