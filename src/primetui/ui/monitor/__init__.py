"""The run monitor: live logs per component, metric charts, components, eval results.

Panes the run screen mounts (each ``Pane(client, run)``; each starts its own followers from
``primetui.api.followers`` on mount and stops them on unmount, so a finished run costs no CPU):

- :class:`LogsPane`: a tab per log stream (trainer, or trainer/N per node; with online evals
  also orchestrator, inference and env:<name> per env server) plus "all", a merged view
  interleaved by time with the component on each line. Keys in a log (ids ``monitor.log.*``):
  ``/`` search, ``n``/``N`` next/previous match, ``f`` filter (text, ``/regex/``, ``!``
  inverts), ``L`` minimum level, ``e`` first error, ``]``/``[`` next/previous error, ``space``
  pause/resume, ``End``/``G`` follow, ``W`` wrap, ``←``/``→`` scroll, ``↑``/``↓`` line,
  ``v`` mark a range, ``c`` copy (OSC 52), ``ctrl+s`` save, ``ctrl+l`` clear.
- :class:`ChartsPane`: loss/mean and loss/perplexity, plus any metric (``a``), eval metrics
  automatically, eval steps marked ``▲`` on the loss charts. Keys (``monitor.chart.*``):
  ``s``/``S`` smoothing, ``o`` log-Y, ``t`` step/wall time, ``←``/``→`` cursor (all charts),
  ``c`` cursor on/off, ``m`` mark + ``z`` zoom to the range, ``+``/``-``/``0`` zoom, ``b``
  braille/block/ASCII.
- :class:`RLChartsPane`: an RL run's charts (reward with its band, per function and environment,
  length, truncation, solved none/some/all, off-policy, times, evals, the trainer log's entropy,
  mismatch KL, grad norm, LR and throughput), with the same keys.
- :class:`ComponentsPane`: each process with its status (R2 + R8).
- :class:`EvalsPane`: a chart per eval metric and a table of eval results by step.

Feed data directly (tests, replays) with ``LogsPane.ingest(key, lines)`` /
``ingest_gap(key, message)`` and ``ChartsPane.add_metrics(rows)``; pass ``follow=False`` to
start no followers.
"""

from primetui.ui.monitor.charts_pane import ChartsPane
from primetui.ui.monitor.components_pane import ComponentsPane
from primetui.ui.monitor.evals_pane import EvalsPane
from primetui.ui.monitor.logs_pane import LogsPane
from primetui.ui.monitor.logview import LogView
from primetui.ui.monitor.rl_charts_pane import RLChartsPane

__all__ = ["ChartsPane", "ComponentsPane", "EvalsPane", "LogView", "LogsPane", "RLChartsPane"]
